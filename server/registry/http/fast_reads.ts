/**
 * The registry's hot read path, ahead of the router: `GET /v1/bots/{bot_id}` answered straight
 * from the stored record text. The record is stored as the JSON the route would serialize, so the
 * bytes are the same; the headers, log line and metrics are those of the routed request. Anything
 * else (other methods, encoded or unusual ids, unknown bots and their 404) goes to the app.
 */
import { recordRequest } from "../../http/middleware.ts";
import { httpRequests } from "../../metrics.ts";
import { loadBotRow } from "../../../db/registry_bots.ts";
import type { RegistryContext } from "../context.ts";
import { BOT_ID_PATTERN } from "../schemas.ts";

/** Route pattern of get_bot, as the router reports it in metrics. */
const GET_BOT_ROUTE = "/v1/bots/:bot_id";
const BOTS_PREFIX = "/v1/bots/";

/** Answers `GET /v1/bots/{bot_id}` of stored bots itself; passes every other request to `app`. */
export function withFastReads(
  rc: RegistryContext,
  corsHeaders: Record<string, string>,
  app: Deno.ServeHandler,
): Deno.ServeHandler {
  const countOk = httpRequests.series({
    app: "registry",
    route: GET_BOT_ROUTE,
    method: "GET",
    status: "200",
  });
  return (req, info) => {
    if (req.method !== "GET") return app(req, info);
    const startMs = performance.now();
    const path = pathOf(req.url);
    if (!path.startsWith(BOTS_PREFIX)) return app(req, info);
    const botId = path.slice(BOTS_PREFIX.length);
    if (!BOT_ID_PATTERN.test(botId)) return app(req, info);
    const row = loadBotRow(rc.db, botId);
    if (!row) return app(req, info);
    const res = new Response(row.record, {
      headers: { ...corsHeaders, "content-type": "application/json", etag: `"${row.version}"` },
    });
    recordRequest(
      "registry",
      { method: "GET", path, route: GET_BOT_ROUTE, status: 200, startMs },
      countOk,
    );
    return res;
  };
}

// The path of an absolute request URL, without query or fragment (as the router sees it).
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = url.length;
  const q = url.indexOf("?", start);
  if (q !== -1) end = q;
  const h = url.indexOf("#", start);
  if (h !== -1 && h < end) end = h;
  return url.slice(start, end);
}
