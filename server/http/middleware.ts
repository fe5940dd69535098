/** Cross-cutting HTTP middleware: request logging and metrics. */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { log } from "../log.ts";
import { httpRequests } from "../metrics.ts";

/** The two HTTP apps, as logs and metrics name them. */
export type AppName = "hosting" | "registry";

/** Logs one line for a finished request and counts it (the rule behind `requestLog`). */
export function recordRequest(
  app: AppName,
  req: { method: string; path: string; route: string; status: number; startMs: number },
  count?: () => void,
): void {
  const { method, path, route, status } = req;
  if (count) count();
  else httpRequests.inc({ app, route, method, status: String(status) });
  log(status >= 500 ? "error" : "info", "http request", {
    app,
    method,
    path,
    status,
    ms: Math.round(performance.now() - req.startMs),
  });
}

/** Logs one line per request (method, path without query, status, duration) and counts it. */
export function requestLog(app: AppName): MiddlewareHandler {
  return async (c, next) => {
    const startMs = performance.now();
    await next();
    recordRequest(app, {
      method: c.req.method,
      path: c.req.path,
      route: routePath(c),
      status: c.res.status,
      startMs,
    });
  };
}
