/**
 * The registry's hot read paths, ahead of the router: `GET /v1/bots/{bot_id}` answered straight
 * from the stored record text (stored_bot_reads.ts) and plain searches (plain_search.ts), with the
 * headers, log line and metrics of the routed request. Behind the connection guard, the guard's
 * thread answers these itself (`guardRegistryReads`) and reports them here; with the guard off,
 * `withFastReads` answers them. Anything else (other methods, encoded or unusual ids, unknown bots
 * and their 404, searches the router would refuse) goes to the app.
 */
import { recordRequest } from "../../http/middleware.ts";
import { httpRequests } from "../../metrics.ts";
import type { RegistryContext } from "../context.ts";
import type { LocalReads, ServedLocally } from "../../http/connection_guard.ts";
import { GET_BOT_ROUTE, pathOf, storedBotHeaders, storedBotId } from "./stored_bot_reads.ts";
import { plainSearchPage, plainSearchParams, SEARCH_ROUTE, searchHeaders } from "./plain_search.ts";

/** The metric counter of a 200 answer on `route`. */
function countOk(route: string): () => void {
  return httpRequests.series({ app: "registry", route, method: "GET", status: "200" });
}

/** Logs and counts a 200 answered ahead of the router, as the router's middleware would. */
function recordOk(path: string, route: string, startMs: number, count: () => void): void {
  recordRequest("registry", { method: "GET", path, route, status: 200, startMs }, count);
}

/** Answers stored bots and plain searches itself; passes every other request to `app`. */
export function withFastReads(rc: RegistryContext, app: Deno.ServeHandler): Deno.ServeHandler {
  const countBot = countOk(GET_BOT_ROUTE);
  const countSearch = countOk(SEARCH_ROUTE);
  return async (req, info) => {
    if (req.method !== "GET") return app(req, info);
    const startMs = performance.now();
    const path = pathOf(req.url);
    if (path === SEARCH_ROUTE) {
      const query = req.url.indexOf("?");
      const params = plainSearchParams(query === -1 ? path : path + req.url.slice(query));
      const page = params === null ? null : await plainSearchPage(rc, params);
      if (page === null) return app(req, info);
      const res = new Response(page, { headers: searchHeaders() });
      recordOk(path, SEARCH_ROUTE, startMs, countSearch);
      return res;
    }
    const botId = storedBotId(path);
    const row = botId === null
      ? undefined
      : await rc.store.bots.loadRow(botId).catch(() => undefined);
    if (!row) return app(req, info);
    const res = new Response(row.record, { headers: storedBotHeaders(row.version) });
    recordOk(path, GET_BOT_ROUTE, startMs, countBot);
    return res;
  };
}

/**
 * Lets the connection guard's thread answer stored bots and plain searches from `database` (the
 * SQLite file's path, or the PostgreSQL URL), logged and counted here.
 */
export function guardRegistryReads(database: string): LocalReads {
  const countBot = countOk(GET_BOT_ROUTE);
  const countSearch = countOk(SEARCH_ROUTE);
  return {
    module: new URL("./guard_registry_reads.ts", import.meta.url).href,
    arg: database,
    unavailable: "guard cannot read the registry; the app answers its reads",
    report(served: ServedLocally[]) {
      const now = performance.now();
      for (const { path, ms } of served) {
        if (path === SEARCH_ROUTE) recordOk(path, SEARCH_ROUTE, now - ms, countSearch);
        else recordOk(path, GET_BOT_ROUTE, now - ms, countBot);
      }
    },
  };
}
