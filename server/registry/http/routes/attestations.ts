/** Attestation routes: publish_attestation and the per-bot list. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { attestationsOf, publishAttestation } from "../../attestations.ts";
import type { RegistryContext } from "../../context.ts";
import { parseLimit } from "../../search.ts";
import {
  Attestation,
  AttestationListResponse,
  PublishAttestationRequest,
} from "../../../../protocol/registry/schemas.ts";
import { BotIdParam, errors, jsonBody, jsonResponse, type RegistryEnv, router } from "../router.ts";

const publish = createRoute({
  method: "post",
  path: "/v1/attestations",
  operationId: "publish_attestation",
  summary: "Publish an attestation signed by its issuer",
  description:
    "Authenticated by `attestation.signature`: Ed25519 by an active key of the issuer bot over the JCS of the attestation without `signature`. Publishing the same attestation again returns the stored one with 200.",
  request: { body: jsonBody(PublishAttestationRequest, "the signed attestation") },
  responses: {
    201: jsonResponse(Attestation, "published"),
    200: jsonResponse(Attestation, "already published (same signed content)"),
    ...errors(400, 404, 413, 500),
  },
});

const list = createRoute({
  method: "get",
  path: "/v1/bots/{bot_id}/attestations",
  operationId: "list_attestations",
  summary: "Attestations about (default) or issued by a bot, oldest first",
  request: {
    params: BotIdParam,
    query: z.object({
      role: z.enum(["subject", "issuer"]).optional().openapi({
        description: "subject (default): about the bot; issuer: made by the bot",
      }),
      limit: z.string().optional().openapi({ description: "1-100, default 20" }),
      cursor: z.string().optional().openapi({ description: "next_cursor of the previous page" }),
    }),
  },
  responses: { 200: jsonResponse(AttestationListResponse, "one page"), ...errors(400, 404, 500) },
});

/** Routes for attestations. */
export function attestationRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();
  app.openapi(publish, async (c) => {
    const raw = c.get("body").attestation as Record<string, unknown>;
    const { attestation, created } = await publishAttestation(rc, raw);
    return created ? c.json(attestation as never, 201) : c.json(attestation as never, 200);
  });
  app.openapi(list, async (c) => {
    const q = c.req.valid("query");
    const page = await attestationsOf(rc, c.req.valid("param").bot_id, {
      role: q.role ?? "subject",
      cursor: q.cursor ?? null,
      limit: parseLimit(q.limit, 20, 100),
    });
    return c.json(page as never, 200);
  });
  return app;
}
