/** Cross-cutting HTTP middleware: request logging and metrics, request body bounds. */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { log } from "../log.ts";
import { httpRequests } from "../metrics.ts";
import { DomainError } from "../../protocol/errors.ts";
import { BodyError } from "./body_read.ts";
import { readWholeBody } from "./whole_body.ts";

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
    ms: Math.round((performance.now() - req.startMs) * 100) / 100,
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

/**
 * Middleware: bounds a request body at `maxBytes` (413) and reads it before the route, so a body
 * the client cut short (it closed before sending what Content-Length or its chunks promised) is
 * a 400 here rather than an error in a handler. Hono's `bodyLimit` lets that read error escape as
 * a 500 logged at error level.
 */
export function readBodyWithin(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return await next();
    const declared = c.req.raw.headers.get("content-length");
    if (
      declared !== null && !c.req.raw.headers.has("transfer-encoding") &&
      Number(declared) > maxBytes
    ) {
      throw new DomainError("too_large", "request body too large");
    }
    let bytes: Uint8Array;
    try {
      bytes = await readWholeBody(body, { maxBytes, gzip: false });
    } catch (err) {
      if (err instanceof BodyError && err.status === 413) {
        throw new DomainError("too_large", "request body too large");
      }
      throw new DomainError("invalid", "could not read request body: it ended early");
    }
    // A new request rather than `new Request(raw, …)`: copying Deno's request copies its abort
    // signal, which Deno warns about on stderr.
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: bytes as Uint8Array<ArrayBuffer>, // read into fresh buffers, never shared
    });
    await next();
  };
}
