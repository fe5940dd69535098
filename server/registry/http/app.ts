/** The registry HTTP app: small routers composed into one app on SERVICE_REGISTRY_BIND. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import type { Context } from "hono";
import type { Signet } from "../../context.ts";
import { onError } from "../../http/errors.ts";
import { requestLog } from "../../http/middleware.ts";
import { compressResponses } from "../../http/compress.ts";
import { mountUi, notFound, notFoundPage, uiPage, wantsHtml } from "../../http/ui_static.ts";
import { PreconditionFailed } from "../bots.ts";
import type { RegistryContext } from "../context.ts";
import { attestationRoutes } from "./routes/attestations.ts";
import { botRoutes } from "./routes/bots.ts";
import { withFastReads } from "./fast_reads.ts";
import { EXPOSED_HEADERS } from "./stored_bot_reads.ts";
import { docRoutes } from "./routes/docs.ts";
import { keyRoutes } from "./routes/keys.ts";
import { logRoutes } from "./routes/log.ts";
import { metaRoutes } from "./routes/meta.ts";
import { searchRoutes } from "./routes/search.ts";
import { readBody, type RegistryEnv, signedBody } from "./router.ts";
import { registryBotLimits, registryIpLimits } from "./rate_limits.ts";

/** Largest request body the registry accepts. */
export const MAX_REGISTRY_BODY_BYTES = 64 * 1024;

/** The registry browser's client-side routes (the embedded UI) besides a bot's page. */
export const REGISTRY_PAGES = ["/"];

/** The registry's Deno.serve handler: hot reads first (fast_reads.ts), then the app. */
export function registryHandler(ctx: Signet, rc: RegistryContext): Deno.ServeHandler {
  const app = registryApp(ctx, rc);
  return withFastReads(rc, (req, info) => app.fetch(req, info));
}

/**
 * A bot's page: the browser app when the bot exists, a 404 when it does not (the HTML 404 page to
 * a browser, JSON to others). When the lookup itself fails the app is served all the same: it
 * reports the failure, with Retry, as for any outage.
 */
async function botPage(c: Context<RegistryEnv>, rc: RegistryContext): Promise<Response> {
  const id = c.req.param("bot_id") ?? "";
  const row = await rc.store.bots.loadRow(id).then((r) => r ?? null, () => undefined);
  if (row !== null) return uiPage("registry");
  if (!wantsHtml(c)) return c.json({ error: `bot ${id} not found` }, 404);
  return notFoundPage("registry", {
    title: "Bot not found",
    lead: "No bot in this registry has the id",
    what: id,
    back: { href: "/", label: "Browse bots" },
  });
}

/** Builds the registry app over `rc` (opened on the store of `ctx`: `openRegistry`). */
export function registryApp(ctx: Signet, rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = new OpenAPIHono<RegistryEnv>();
  app.use("*", requestLog("registry"));
  app.use("*", cors({ origin: "*", exposeHeaders: EXPOSED_HEADERS }));
  // gzip for the browser's pages and assets and the JSON of GETs the router answers (the hot reads
  // ahead of it, fast_reads.ts, go as stored).
  app.use("*", compressResponses());
  // The per-IP write limit before the body is read, so junk bodies are limited too.
  app.use("/v1/*", registryIpLimits(ctx));
  app.use("/v1/*", readBody(MAX_REGISTRY_BODY_BYTES));
  app.use("/v1/*", signedBody);
  app.use("/v1/*", registryBotLimits(ctx));
  app.route("/", metaRoutes(rc));
  app.route("/", botRoutes(rc));
  app.route("/", keyRoutes(rc));
  app.route("/", attestationRoutes(rc));
  app.route("/", searchRoutes(rc));
  app.route("/", logRoutes(rc));
  app.route("/", docRoutes(app));
  mountUi(app, "registry", REGISTRY_PAGES);
  app.get("/bots/:bot_id", (c) => botPage(c, rc));
  app.notFound((c) =>
    notFound(c, "registry", ["/v1"], `no registry route ${c.req.method} ${c.req.path}`)
  );
  app.onError((err, c: Context) => {
    if (err instanceof PreconditionFailed) return c.json({ error: err.message }, 412);
    return onError(err, c);
  });
  return app;
}
