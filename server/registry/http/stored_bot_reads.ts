/**
 * The registry's hot read, `GET /v1/bots/{bot_id}` of a stored bot, as one rule for both places
 * that answer it ahead of the router: the app thread (fast_reads.ts, when the connection guard is
 * off) and the connection guard's thread (guard_registry_reads.ts). The record is stored as the JSON
 * the route would serialize, so the bytes are the same; so are the headers.
 */
import { BOT_ID_PATTERN } from "../../../protocol/registry/bot_id.ts";

/** Route pattern of get_bot, as the router reports it in metrics. */
export const GET_BOT_ROUTE = "/v1/bots/:bot_id";

/** Response headers the browser may read across origins. */
export const EXPOSED_HEADERS = ["ETag", "Location"];

/** The CORS headers every non-preflight registry response ends with (any origin may read). */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS.join(","),
};

const BOTS_PREFIX = "/v1/bots/";

/** The bot a plain `/v1/bots/{bot_id}` path names, or null for any other path or an unusual id. */
export function storedBotId(path: string): string | null {
  if (!path.startsWith(BOTS_PREFIX)) return null;
  const botId = path.slice(BOTS_PREFIX.length);
  return BOT_ID_PATTERN.test(botId) ? botId : null;
}

/** The headers of a stored bot's 200 response, in the order Deno.serve writes them. */
export function storedBotHeaders(version: number): Record<string, string> {
  return { "content-type": "application/json", etag: `"${version}"`, ...CORS_HEADERS };
}

/** The path of a request target or absolute URL, without query or fragment (as the router sees it). */
export function pathOf(target: string): string {
  // Origin form ("/path?query") as sent on the wire, or an absolute URL (Request.url).
  const start = target[0] === "/" ? 0 : target.indexOf("/", target.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = target.length;
  const q = target.indexOf("?", start);
  if (q !== -1) end = q;
  const h = target.indexOf("#", start);
  if (h !== -1 && h < end) end = h;
  return target.slice(start, end);
}
