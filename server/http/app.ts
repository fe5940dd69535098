/** The hosting HTTP app: API routers, smart HTTP and the embedded UI composed into one Hono app. */
import { Hono } from "hono";
import type { Signet } from "../context.ts";
import { accountRoutes } from "./routes/accounts.ts";
import { adminRoutes } from "./routes/admin.ts";
import { repoRoutes } from "./routes/repos.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import { uiRoutes } from "./routes/ui.ts";
import { gitRoutes } from "./git.ts";
import { isRawPath } from "./browse/raw_path.ts";
import { onError } from "./errors.ts";
import { readBodyWithin, requestLog } from "./middleware.ts";
import { requireAdmin } from "./auth.ts";
import { pageNotFound } from "./not_found.ts";
import { methodNotAllowed, methodsAt } from "./allowed_methods.ts";
import { compressResponses } from "./compress.ts";
import { checkHealth } from "../domain/health.ts";
import { renderMetrics } from "../metrics.ts";

/** Largest JSON body the API accepts. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/** Paths of git's smart HTTP (gitRoutes): their answers are never compressed here. */
export function isGitTransport(path: string): boolean {
  return /\/(info\/refs|git-upload-pack|git-receive-pack)$/.test(path);
}

/** Builds the hosting app for `ctx`. */
export function hostingApp(ctx: Signet): Hono {
  const app = new Hono();
  app.use("*", requestLog("hosting"));
  // gzip for the dashboard, its assets, the API's JSON and the repository pages; never the git
  // transport, nor raw downloads (streamed, of any size).
  app.use("*", compressResponses((path) => isGitTransport(path) || isRawPath(path)));
  const api = new Hono();
  api.use("*", readBodyWithin(MAX_JSON_BODY_BYTES));
  api.route("/admin", adminRoutes(ctx));
  api.route("/", accountRoutes(ctx));
  api.route("/", repoRoutes(ctx));
  api.route("/tokens", tokenRoutes(ctx));
  api.get("/health", async (c) => {
    const health = await checkHealth(ctx);
    c.header("Signet-Instance", health.instance);
    return c.json(health, health.status === "ok" ? 200 : 503);
  });
  let methods: ((path: string) => string[]) | null = null;
  api.all("*", (c) => {
    methods ??= methodsAt(app.routes.filter((r) => r.path.startsWith("/api/")));
    const allowed = methods(c.req.path);
    if (allowed.length > 0) {
      const { body, headers } = methodNotAllowed(c.req.method, c.req.path, allowed);
      return c.json(body, 405, headers);
    }
    return c.json({ error: `no API route ${c.req.method} ${c.req.path}` }, 404);
  });
  app.route("/api", api);
  app.get(
    "/metrics",
    requireAdmin(ctx),
    (c) => c.body(renderMetrics(), 200, { "Content-Type": "text/plain; version=0.0.4" }),
  );
  app.route("/", uiRoutes());
  app.route("/", gitRoutes(ctx));
  // The repository browser: `/<owner>`, `/<owner>/<repo>` and its pages (after smart HTTP). Its
  // code (server rendering, Markdown, highlighting) loads with the first page asked for: a server
  // whose repositories nobody browses never holds it (docs/decisions/performance-and-bench.md,
  // "Memory at rest").
  let browse: Promise<Hono> | null = null;
  app.get("*", async (c) => {
    browse ??= import("./browse/routes.ts").then((m) => {
      const routes = m.browseRoutes(ctx);
      routes.notFound(pageNotFound);
      routes.onError(onError);
      return routes;
    });
    return await (await browse).fetch(c.req.raw, c.env);
  });
  app.notFound(pageNotFound);
  app.onError(onError);
  return app;
}
