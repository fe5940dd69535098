/** Service routes: health, api_root, get_nonce, registry_stats. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import project from "../../../../deno.json" with { type: "json" };
import type { RegistryContext } from "../../context.ts";
import { issueNonce } from "../../nonce.ts";
import {
  HealthResponse,
  NonceResponse,
  RegistryStatsResponse,
  RootResponse,
} from "../../../../protocol/registry/schemas.ts";
import { registryStats } from "../../stats.ts";
import { errors, jsonResponse, type RegistryEnv, router } from "../router.ts";

/** The response header naming the instance that answered a health check. */
export const INSTANCE_HEADER = "Signet-Instance";

const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "health",
  summary: "Liveness",
  responses: {
    200: jsonResponse(HealthResponse, "the service and its database answer"),
    503: jsonResponse(HealthResponse, "the database does not answer"),
  },
});

const root = createRoute({
  method: "get",
  path: "/v1",
  operationId: "api_root",
  summary: "Service metadata and links",
  responses: { 200: jsonResponse(RootResponse, "service metadata"), ...errors(500) },
});

const nonce = createRoute({
  method: "get",
  path: "/v1/nonce",
  operationId: "get_nonce",
  summary: "A fresh single-use nonce for one signed request",
  description: "Valid for 5 minutes; consumed by the first accepted write whose proof carries it.",
  responses: { 200: jsonResponse(NonceResponse, "fresh nonce"), ...errors(500) },
});

const stats = createRoute({
  method: "get",
  path: "/v1/stats",
  operationId: "registry_stats",
  summary: "Registry counts and metrics",
  responses: { 200: jsonResponse(RegistryStatsResponse, "current counts"), ...errors(500) },
});

/** Links advertised by GET /v1. */
export const ROOT_LINKS: Record<string, string> = {
  health: "/health",
  openapi: "/v1/openapi.json",
  documentation: "/v1/docs",
  protocol: "/v1/docs/protocol",
  nonce: "/v1/nonce",
  bots: "/v1/bots",
  bot: "/v1/bots/{bot_id}",
  bot_keys: "/v1/bots/{bot_id}/keys",
  bot_key: "/v1/bots/{bot_id}/keys/{key_id}",
  bot_rotate: "/v1/bots/{bot_id}/rotate",
  bot_revoke: "/v1/bots/{bot_id}/revoke",
  bot_attestations: "/v1/bots/{bot_id}/attestations",
  bot_log: "/v1/bots/{bot_id}/log{?order,after,before,limit}",
  bot_controlled: "/v1/bots/{bot_id}/controlled{?limit,cursor}",
  attestations: "/v1/attestations",
  search: "/v1/search{?q,status,capability,limit,cursor}",
  search_counts: "/v1/search/counts{?q,status,capability}",
  api_reference: "/v1/docs/api",
  stats: "/v1/stats",
  log: "/v1/log{?order,after,before,limit}",
};

/** Service routes. */
export function metaRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();
  app.openapi(health, async (c) => {
    // Which instance answered; a header, as the spec's HealthResponse has one property.
    if (rc.instance) c.header(INSTANCE_HEADER, rc.instance);
    try {
      await rc.store.ping();
      return c.json({ status: "ok" as const }, 200);
    } catch {
      return c.json({ status: "unavailable" as const }, 503);
    }
  });
  app.openapi(root, (c) =>
    c.json({
      name: "signet bot identity registry",
      version: project.version,
      api_version: "v1" as const,
      description:
        "Public-read, proof-authenticated registry of bot identities: keys, controllers, m-of-n policies, attestations, search and a hash-chained audit log.",
      documentation_url: "/v1/docs",
      openapi_url: "/v1/openapi.json",
      server_time: new Date(rc.now()).toISOString(),
      links: ROOT_LINKS,
    }, 200));
  app.openapi(nonce, (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ nonce: issueNonce(rc.nonceKey, rc.now()) }, 200);
  });
  app.openapi(stats, async (c) => c.json(await registryStats(rc) as never, 200));
  return app;
}
