/** The registry HTTP app: small routers composed into one app on SERVICE_REGISTRY_BIND. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import type { Context, MiddlewareHandler } from "hono";
import type { Signet } from "../../context.ts";
import { onError } from "../../http/errors.ts";
import { requestLog } from "../../http/middleware.ts";
import { compressResponses } from "../../http/compress.ts";
import { mountUi } from "../../http/ui_static.ts";
import { PreconditionFailed } from "../bots.ts";
import type { RegistryContext } from "../context.ts";
import { attestationRoutes } from "./routes/attestations.ts";
import { botRoutes } from "./routes/bots.ts";
import { withFastReads } from "./fast_reads.ts";
import { CORS_HEADERS, EXPOSED_HEADERS } from "./stored_bot_reads.ts";
import { docRoutes } from "./routes/docs.ts";
import { keyRoutes } from "./routes/keys.ts";
import { logRoutes } from "./routes/log.ts";
import { metaRoutes } from "./routes/meta.ts";
import { searchRoutes } from "./routes/search.ts";
import { botPage, isPageRequest, landingPage, logPage, unknownPage } from "./pages.ts";
import { readBody, type RegistryEnv, signedBody } from "./router.ts";
import { methodNotAllowed, methodsAt } from "../../http/allowed_methods.ts";
import { registryBotLimits, registryIpLimits } from "./rate_limits.ts";

/** Largest request body the registry accepts. */
export const MAX_REGISTRY_BODY_BYTES = 64 * 1024;

/** The registry's Deno.serve handler: hot reads first (fast_reads.ts), then the app. */
export function registryHandler(ctx: Signet, rc: RegistryContext): Deno.ServeHandler {
  const app = registryApp(ctx, rc);
  return withFastReads(rc, (req, info) => app.fetch(req, info));
}

/** Builds the registry app over `rc` (opened on the store of `ctx`: `openRegistry`). */
export function registryApp(ctx: Signet, rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = new OpenAPIHono<RegistryEnv>();
  app.use("*", requestLog("registry"));
  app.use("*", registryCors());
  // gzip for the browser's pages and assets and the JSON of GETs the router answers (the hot reads
  // ahead of it, fast_reads.ts, go as stored).
  app.use("*", compressResponses());
  // The per-IP write limit before the body is read, so junk bodies are limited too.
  app.use("/v1/*", registryIpLimits(ctx));
  // Before the body is read: a method the path does not take is 405, a path no route has is 404.
  let methods: ((path: string) => string[]) | null = null;
  app.use("/v1/*", async (c, next) => {
    methods ??= methodsAt(app.routes);
    const allowed = methods(c.req.path);
    if (allowed.length === 0) return c.notFound();
    if (!allowed.includes(c.req.method) && c.req.method !== "OPTIONS") {
      const { body, headers } = methodNotAllowed(c.req.method, c.req.path, allowed);
      return c.json(body, 405, headers);
    }
    await next();
  });
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
  // The assets; the pages are rendered on the server (pages.ts).
  mountUi(app, "registry", []);
  app.get("/", (c) => landingPage(c, rc));
  app.get("/bots/:bot_id", (c) => botPage(c, rc));
  app.get("/log", (c) => logPage(c, rc));
  app.notFound((c) =>
    isPageRequest(c)
      ? unknownPage(c)
      : c.json({ error: `no registry route ${c.req.method} ${c.req.path}` }, 404)
  );
  app.onError((err, c: Context) => {
    if (err instanceof PreconditionFailed) return c.json({ error: err.message }, 412);
    return onError(err, c);
  });
  return app;
}

/**
 * Any origin may call the registry: preflights are Hono's `cors()`; every other answer gets
 * CORS_HEADERS once it exists. (`cors()` sets them before the route runs, which makes Hono build
 * each answer twice: a placeholder, then a second Response with the route's answer and its headers
 * copied in.)
 */
function registryCors(): MiddlewareHandler {
  const preflight = cors({ origin: "*", exposeHeaders: EXPOSED_HEADERS });
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return await preflight(c, next);
    await next();
    for (const [name, value] of Object.entries(CORS_HEADERS)) {
      try {
        c.res.headers.set(name, value);
      } catch {
        c.header(name, value); // an answer with immutable headers: Hono copies it
      }
    }
  };
}
