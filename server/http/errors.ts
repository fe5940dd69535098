/** Turning thrown errors into `{"error": "..."}` JSON responses. */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { DomainError, HTTP_STATUS } from "../../protocol/errors.ts";
import { log } from "../log.ts";
import { RateLimitError } from "../ratelimit.ts";

/** Hono `onError` handler: domain errors keep their message, anything else is a logged 500. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof RateLimitError) {
    return c.json({ error: err.message }, 429, { "Retry-After": String(err.retryAfterSeconds) });
  }
  if (err instanceof DomainError) {
    const res = c.json({ error: err.message }, HTTP_STATUS[err.kind]);
    if (err.kind === "unauthorized") res.headers.set("WWW-Authenticate", 'Bearer realm="service"');
    return res;
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    const message = status === 413 ? "request body too large" : err.message || "bad request";
    return c.json({ error: message }, status);
  }
  log("error", "unhandled error", { path: new URL(c.req.url).pathname, error: String(err) });
  return c.json({ error: "internal server error" }, 500);
}

/** Reads the request body as a JSON object; malformed JSON or a non-object is a 400. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await c.req.text();
  } catch (err) {
    if (err instanceof HTTPException) throw err;
    throw new DomainError("invalid", "could not read request body");
  }
  const value = parseJsonObject(text);
  // No engine stores it alike (PostgreSQL's text refuses it): refused on both.
  if (text.includes("\\u0000")) {
    throw new DomainError("invalid", "request body contains U+0000 (NUL) in a string");
  }
  return value;
}

/** `text` (a request body) as a JSON object; malformed JSON or a non-object is a 400. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError("invalid", "request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DomainError("invalid", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
