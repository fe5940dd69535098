/** Registry rate limits: nonce issuance per IP, mutations per IP and per bot. */
import type { MiddlewareHandler } from "hono";
import type { Signet } from "../../context.ts";
import { clientIp } from "../../http/client_address.ts";
import type { RegistryEnv } from "./router.ts";

/**
 * The bot a mutation writes: the path's `/v1/bots/<id>`, else the body's `bot_id` or `issuer`. A
 * segment that is not valid percent-encoding is kept as sent (no bot has such an id; the route
 * answers 400 or 404, as a read of that path does).
 */
export function mutatedBot(path: string, body: Record<string, unknown>): string | undefined {
  const m = /^\/v1\/bots\/([^/]+)/.exec(path);
  if (m) return decodedSegment(m[1]);
  const id = body.bot_id ?? body.issuer;
  return typeof id === "string" ? id.slice(0, 128) : undefined;
}

/** Before the body is read: `nonce_ip` for GET /v1/nonce, `registry_write_ip` for every write. */
export function registryIpLimits(ctx: Signet): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") {
      if (c.req.path === "/v1/nonce") await ctx.limiter.take("nonce_ip", clientIp(c));
    } else if (method !== "OPTIONS") {
      await ctx.limiter.take("registry_write_ip", clientIp(c));
    }
    await next();
  };
}

/** After the body is parsed: `registry_write_bot` for the bot a write targets. */
export function registryBotLimits(ctx: Signet): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") {
      const bot = mutatedBot(c.req.path, c.var.body ?? {});
      if (bot !== undefined) await ctx.limiter.take("registry_write_bot", bot);
    }
    await next();
  };
}

/** `segment` percent-decoded, or as it is when it is not valid percent-encoded UTF-8. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
