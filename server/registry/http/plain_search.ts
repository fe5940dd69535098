/**
 * Plain searches, as one rule for both places that answer them ahead of the router: the app thread
 * (fast_reads.ts, when the connection guard is off) and the connection guard's thread
 * (guard_registry_reads.ts). A plain search is `GET /v1/search` whose query holds only the route's
 * own parameters, each once, each with a non-empty value of unreserved characters (nothing to
 * decode). The page is `searchBots`' answer, the same function the route calls, so the body is
 * the same; so are the headers. Any other search, and any search `searchBots` refuses, goes to the
 * router, which validates and answers it (its 400s included).
 */
import { CORS_HEADERS } from "./stored_bot_reads.ts";
import { searchBots, type SearchContext, type SearchParams } from "../search.ts";

/** Route pattern of search, as the router reports it in metrics. */
export const SEARCH_ROUTE = "/v1/search";

const PARAMETER = /^(q|status|capability|sort|limit|cursor)=([A-Za-z0-9._~-]+)$/;

/**
 * The parameters of a plain search request target (origin form, `/v1/search?…`), or null for any
 * other target or a search the router should see.
 */
export function plainSearchParams(target: string): SearchParams | null {
  if (!target.startsWith(SEARCH_ROUTE)) return null;
  const rest = target.slice(SEARCH_ROUTE.length);
  if (rest === "" || rest === "?") return {};
  if (rest[0] !== "?") return null;
  const params: Record<string, string> = {};
  for (const pair of rest.slice(1).split("&")) {
    const m = PARAMETER.exec(pair);
    if (!m || m[1] in params) return null;
    params[m[1]] = m[2];
  }
  return params;
}

/**
 * The page `searchBots` answers for `params`, or null when it refuses them or fails (the router
 * then answers, with the error).
 */
export async function plainSearchPage(
  ctx: SearchContext,
  params: SearchParams,
): Promise<string | null> {
  try {
    return await searchBots(ctx, params);
  } catch {
    return null;
  }
}

/** The headers of a search page's 200 response, in the order Deno.serve writes them. */
export function searchHeaders(): Record<string, string> {
  return { "content-type": "application/json", ...CORS_HEADERS };
}
