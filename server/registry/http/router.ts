/** Shared pieces of the registry's HTTP routers: the router factory, validation errors, and the body readers. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { DomainError } from "../../../protocol/errors.ts";
import { mutateBot, type MutationRequest } from "../bots.ts";
import type { RegistryContext } from "../context.ts";
import { readStrictJson } from "../../../protocol/registry/json.ts";
import { BodyError } from "../../http/body_read.ts";
import { readWholeBody } from "../../http/whole_body.ts";
import { BotRecord, ErrorResponse } from "../../../protocol/registry/schemas.ts";

/** Per-request variables: the body as received (parsed strictly). */
export type RegistryEnv = { Variables: { body: Record<string, unknown> } };

/** Formats zod issues as one precise message naming the field. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], target: string): string {
  const first = issues[0];
  if (!first) return `invalid ${target}`;
  const path = first.path.reduce<string>(
    (acc, p) => typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p),
    "",
  );
  const where = path
    ? `${target === "json" ? "" : `${target} `}${path}`
    : target === "json"
    ? "body"
    : target;
  return `invalid request: ${where}: ${first.message}`;
}

/** A new router whose validation failures become `{"error": ...}` 400s. */
export function router(): OpenAPIHono<RegistryEnv> {
  return new OpenAPIHono<RegistryEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return c.json({ error: describeIssues(result.error.issues, result.target) }, 400);
      }
    },
  });
}

/**
 * Reads a write's body once, whole, at most `maxBytes` (413 beyond: a declared Content-Length at
 * once, a chunked body as soon as it grows past it), and keeps its text for `signedBody` to parse.
 * A body the client cut short (the connection closed before all of it arrived, which Deno reports
 * as BadResource) is a 400 like any other bad request: it says nothing about the server.
 */
export function readBody(maxBytes: number): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    if (c.req.method === "GET" || c.req.method === "HEAD") return await next();
    const tooLarge = () =>
      c.json({ error: `request body too large (limit ${maxBytes} bytes)` }, 413);
    const declared = raw.headers.get("content-length");
    const framed = declared !== null && !raw.headers.has("transfer-encoding");
    if (framed && Number(declared) > maxBytes) return tooLarge();
    // (`raw.body` only when it is needed: asking for it makes Deno build the body's stream.)
    if (!framed && !raw.body) return await next();
    let bytes: Uint8Array;
    try {
      // A declared length within the bound is all the server reads (HTTP/1.1 framing), so the body
      // is read whole at once; a chunked one is counted as it arrives.
      bytes = framed
        ? await raw.bytes()
        : await readWholeBody(raw.body!, { maxBytes, gzip: false });
    } catch (err) {
      if (err instanceof BodyError && err.status === 413) return tooLarge();
      throw new DomainError(
        "invalid",
        "could not read the request body: the connection closed before all of it arrived",
      );
    }
    // The routes read it as text (signedBody); cached as Hono caches a read (a promise, which its
    // types do not say), so nothing reads the stream again.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(UTF8.decode(bytes));
    await next();
  };
}

const UTF8 = new TextDecoder();

/**
 * Middleware for mutation routes: requires `Content-Type: application/json`, reads the body once,
 * rejects duplicate keys, lone surrogates, deep nesting and non-objects, and keeps the parsed
 * body as received (it is what the proofs sign) in `c.var.body`.
 */
export const signedBody: MiddlewareHandler<RegistryEnv> = async (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") return await next();
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new DomainError("invalid", "Content-Type must be application/json");
  }
  const read = readStrictJson(await c.req.text());
  if (!read.ok) throw new DomainError("invalid", read.problem);
  const body = read.value;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new DomainError("invalid", "request body must be a JSON object");
  }
  c.set("body", body as Record<string, unknown>);
  // The route's schema validation reads the same parsed body instead of parsing the text again.
  c.req.bodyCache.json = Promise.resolve(body);
  await next();
};

/**
 * Runs the bot mutation of this request (method, path, signed body and If-Match taken from it)
 * and answers with the new record as stored, its version as ETag.
 */
export async function mutationResponse(
  c: Context<RegistryEnv>,
  rc: RegistryContext,
  target: Pick<MutationRequest, "operation" | "botId" | "keyId">,
  status: 200 | 201 = 200,
  headers: Record<string, string> = {},
): Promise<Response> {
  const { bot, record } = await mutateBot(rc, {
    ...target,
    method: c.req.method,
    path: requestPath(c),
    body: c.get("body"),
    ifMatch: c.req.header("if-match") ?? null,
  });
  return c.body(record, status, {
    "Content-Type": "application/json",
    ETag: `"${bot.version}"`,
    ...headers,
  });
}

/** The raw request path, exactly as sent (what a proof's `htu` must equal). */
export function requestPath(c: Context): string {
  return new URL(c.req.url).pathname;
}

/** The error statuses a registry route may document. */
export type ErrorCode = 400 | 404 | 409 | 412 | 413 | 500;

/** Standard error responses for the OpenAPI document. */
export function errors(...codes: ErrorCode[]) {
  const text: Record<number, string> = {
    400: "invalid payload, signature, request or policy inputs; policy threshold not met",
    404: "not found",
    409: "conflict with an existing bot or key, or a record already holding 32 keys",
    412: "If-Match does not match the record version",
    413: "request body larger than 64 KiB",
    500: "server error",
  };
  return Object.fromEntries(codes.map((code) => [code, {
    description: text[code],
    content: { "application/json": { schema: ErrorResponse } },
  }]));
}

/** A JSON request body for the OpenAPI route definition. */
export function jsonBody<T extends z.ZodType>(schema: T, description: string) {
  return { required: true, description, content: { "application/json": { schema } } };
}

/** A JSON response for the OpenAPI route definition. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** Path parameter schemas. */
export const BotIdParam = z.object({
  bot_id: z.string().min(1).openapi({
    param: { name: "bot_id", in: "path" },
    example: "acme-deploy-bot",
  }),
});
/** Path parameters of key routes. */
export const BotKeyParams = BotIdParam.extend({
  key_id: z.string().min(1).openapi({ param: { name: "key_id", in: "path" }, example: "k1" }),
});

/** Description appended to every mutation route. */
export const MUTATION_AUTH =
  "Requires exactly one of `proof` or `proof_set` in the body: Ed25519 detached JWS over the JCS of the body minus the proofs, bound to method, path and a nonce from GET /v1/nonce (see docs/registry-protocol.md).";

/** One bot mutation route: what differs between them; `mountMutation` adds what they share. */
export interface MutationSpec {
  method: "post" | "patch" | "delete";
  /** Its path parameters (`{bot_id}`, `{key_id}`) are read from it. */
  path: string;
  operationId: MutationRequest["operation"];
  summary: string;
  /** What the description says after the proof rules (MUTATION_AUTH). */
  rule: string;
  /** The request body's schema and description. */
  body: readonly [z.ZodType, string];
  /** The success status (201 answers a Location too) and its description. */
  ok: readonly [200 | 201, string];
  errors: ErrorCode[];
}

/**
 * Mounts a bot mutation on `app`: its OpenAPI route (proof rules in the description, path
 * parameters from the path, the stored record as the answer) and the handler that runs it through
 * `mutationResponse` for the bot in the path, or in the body when creating.
 */
export function mountMutation(
  app: OpenAPIHono<RegistryEnv>,
  rc: RegistryContext,
  spec: MutationSpec,
): void {
  const [status, okText] = spec.ok;
  const params = spec.path.includes("{key_id}")
    ? BotKeyParams
    : spec.path.includes("{bot_id}")
    ? BotIdParam
    : undefined;
  const route = createRoute({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: `${MUTATION_AUTH} ${spec.rule}`,
    request: { ...(params ? { params } : {}), body: jsonBody(spec.body[0], spec.body[1]) },
    responses: { [status]: jsonResponse(BotRecord, okText), ...errors(...spec.errors) },
  });
  app.openapi(route, async (c) => {
    const botId = c.req.param("bot_id") ?? String(c.get("body").bot_id);
    const keyId = c.req.param("key_id");
    const location: Record<string, string> = status === 201
      ? { Location: `/v1/bots/${botId}` }
      : {};
    return await mutationResponse(
      c,
      rc,
      { operation: spec.operationId, botId, ...(keyId ? { keyId } : {}) },
      status,
      location,
    ) as never;
  });
}
