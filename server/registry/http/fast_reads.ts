/**
 * The registry's hot read path, ahead of the router: `GET /v1/bots/{bot_id}` answered straight
 * from the stored record text (stored_bot_reads.ts), with the headers, log line and metrics of the
 * routed request. Behind the connection guard, the guard's thread answers these itself
 * (`guardBotReads`) and reports them here; with the guard off, `withFastReads` answers them.
 * Anything else (other methods, encoded or unusual ids, unknown bots and their 404) goes to the app.
 */
import { recordRequest } from "../../http/middleware.ts";
import { httpRequests } from "../../metrics.ts";
import { loadBotRow } from "../../../db/registry_bots.ts";
import type { RegistryContext } from "../context.ts";
import type { LocalReads, ServedLocally } from "../../http/connection_guard.ts";
import { GET_BOT_ROUTE, pathOf, storedBotHeaders, storedBotId } from "./stored_bot_reads.ts";

function countGetBotOk(): () => void {
  return httpRequests.series({
    app: "registry",
    route: GET_BOT_ROUTE,
    method: "GET",
    status: "200",
  });
}

/** Answers `GET /v1/bots/{bot_id}` of stored bots itself; passes every other request to `app`. */
export function withFastReads(rc: RegistryContext, app: Deno.ServeHandler): Deno.ServeHandler {
  const countOk = countGetBotOk();
  return (req, info) => {
    if (req.method !== "GET") return app(req, info);
    const startMs = performance.now();
    const path = pathOf(req.url);
    const botId = storedBotId(path);
    const row = botId === null ? undefined : loadBotRow(rc.db, botId);
    if (!row) return app(req, info);
    const res = new Response(row.record, { headers: storedBotHeaders(row.version) });
    recordRequest(
      "registry",
      { method: "GET", path, route: GET_BOT_ROUTE, status: 200, startMs },
      countOk,
    );
    return res;
  };
}

/** Lets the connection guard's thread answer stored bots from `databasePath`, logged and counted here. */
export function guardBotReads(databasePath: string): LocalReads {
  const countOk = countGetBotOk();
  return {
    databasePath,
    report(served: ServedLocally[]) {
      const now = performance.now();
      for (const { path, ms } of served) {
        recordRequest(
          "registry",
          { method: "GET", path, route: GET_BOT_ROUTE, status: 200, startMs: now - ms },
          countOk,
        );
      }
    },
  };
}
