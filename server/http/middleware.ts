/** Cross-cutting HTTP middleware: request logging and metrics. */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { log } from "../log.ts";
import { httpRequests } from "../metrics.ts";

/** Logs one line per request (method, path without query, status, duration) and counts it. */
export function requestLog(app: "hosting" | "registry"): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const status = c.res.status;
    const route = routePath(c);
    httpRequests.inc({ app, route, method: c.req.method, status: String(status) });
    log(status >= 500 ? "error" : "info", "http request", {
      app,
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round(performance.now() - start),
    });
  };
}
