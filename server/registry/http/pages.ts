/**
 * The registry's public pages, rendered on the server (ui/registry/ssr.tsx) and hydrated in the
 * browser: the landing page with its search (`/`), a bot's page (`/bots/{bot_id}`) and the 404
 * page. The data comes straight from the registry's domain (no HTTP to itself) and goes into the
 * page under the API URLs the browser would fetch it from, so hydration fetches nothing. A 404
 * runs no script: a heading, what was not found and a link back, the same with JavaScript off.
 */
import type { Context } from "hono";
import { DomainError, HTTP_STATUS } from "../../../protocol/errors.ts";
import type { Preloaded } from "../../../ui/common/preload.ts";
import {
  attestationsUrl,
  BOT_LOG_PAGE,
  botUrl,
  controlledUrl,
  countsUrl,
  LOG_PAGE,
  logUrl,
  PAGE_SIZE,
  searchUrl,
  STATS_URL,
  wholeLogUrl,
} from "../../../ui/registry/api.ts";
import { readLogQuery, readQuery, renderRegistry } from "../../../ui/registry/ssr.tsx";
import { renderedPage } from "../../http/ssr_page.ts";
import { wantsHtml } from "../../http/ui_static.ts";
import { log } from "../../log.ts";
import { attestationsOf } from "../attestations.ts";
import { findBot } from "../bots.ts";
import { controlledBots } from "../controlled.ts";
import type { RegistryContext } from "../context.ts";
import { readLog } from "../log.ts";
import { searchBots } from "../search.ts";
import { searchCounts } from "../search_counts.ts";
import { registryStats } from "../stats.ts";
import type { RegistryEnv } from "./router.ts";

/** Attestations per role on a bot page's first render (the API's default page). */
const ATTESTATIONS_PAGE = 20;

/** `read()` as the API would have answered it: its data, or its error and status. */
async function answer(read: () => Promise<unknown>): Promise<Preloaded> {
  try {
    return { data: await read() };
  } catch (err) {
    if (err instanceof DomainError) return { error: err.message, status: HTTP_STATUS[err.kind] };
    log("error", "page data failed", { error: String(err) });
    return { error: "internal server error", status: 500 };
  }
}

/**
 * A search page as the results list needs it: each record without the parts a result card does
 * not show (its keys' material and history, policy, endpoints, controllers). Key material is
 * random and does not compress: at 20 results it was about a third of the gzipped page.
 */
function forCards(page: { results: Record<string, unknown>[]; next_cursor: string | null }) {
  return {
    ...page,
    results: page.results.map((bot) => {
      const { keys, policy: _p, endpoints: _e, controllers: _c, delegation: _d, ...rest } = bot;
      return {
        ...rest,
        keys: (keys as { key_id: string; status?: string }[]).map((k) => ({
          key_id: k.key_id,
          status: k.status,
        })),
      };
    }),
  };
}

/** The path and query of the request, as the browser's location has them. */
function where(c: Context): { path: string; search: string } {
  const url = new URL(c.req.url);
  return { path: url.pathname, search: url.search };
}

/** `GET /`: the statistics, the search form and the page of results the URL asks for. */
export async function landingPage(c: Context<RegistryEnv>, rc: RegistryContext) {
  const { path, search } = where(c);
  const { query } = readQuery(search);
  const filters = { q: query.q, status: query.status, capability: query.capability };
  const [stats, results, counts] = await Promise.all([
    answer(() => registryStats(rc)),
    answer(async () =>
      forCards(JSON.parse(
        await searchBots(rc, {
          ...filters,
          cursor: query.cursor,
          limit: query.limit || String(PAGE_SIZE),
        }),
      ))
    ),
    answer(() => searchCounts(rc, filters)),
  ]);
  const data = {
    [STATS_URL]: stats,
    [searchUrl(query)]: results,
    [countsUrl(query)]: counts,
  };
  return renderedPage("registry", {
    title: query.q ? `“${query.q}” · Signet registry` : "Signet registry",
    body: renderRegistry(path, search, data),
    data,
  });
}

/**
 * `GET /bots/{bot_id}`: the bot with the first page of its attestations (both ways), of its log
 * and of the bots it controls. A bot that does not exist is the 404 page to a browser and JSON to
 * others, as before.
 */
export async function botPage(c: Context<RegistryEnv>, rc: RegistryContext) {
  const id = c.req.param("bot_id") ?? "";
  const { path, search } = where(c);
  const bot = await answer(async () => {
    const found = await findBot(rc.store, id);
    if (!found) throw new DomainError("not_found", `bot ${id} not found`);
    return found;
  });
  if ("error" in bot && bot.status === 404) {
    if (!wantsHtml(c)) return c.json({ error: bot.error }, 404);
    return renderedPage("registry", {
      title: "Bot not found · Signet registry",
      body: renderRegistry(path, search, { [botUrl(id)]: bot }),
      status: 404,
    });
  }
  const data: Record<string, Preloaded> = { [botUrl(id)]: bot };
  if ("data" in bot) {
    const page = { cursor: null, limit: ATTESTATIONS_PAGE };
    const [received, issued, entries, controlled] = await Promise.all([
      answer(() => attestationsOf(rc, id, { role: "subject", ...page })),
      answer(() => attestationsOf(rc, id, { role: "issuer", ...page })),
      answer(() => readLog(rc, { botId: id, order: "desc", limit: String(BOT_LOG_PAGE) })),
      answer(() => controlledBots(rc, id, {})),
    ]);
    data[controlledUrl(id)] = controlled;
    data[attestationsUrl(id, "subject")] = received;
    data[attestationsUrl(id, "issuer")] = issued;
    data[logUrl(id)] = entries;
  }
  const name = "data" in bot ? (bot.data as { name?: string }).name || id : id;
  return renderedPage("registry", {
    title: `${name} · Signet registry`,
    body: renderRegistry(path, search, data),
    data,
  });
}

/** `GET /log`: the whole audit log, newest first, the page the URL names. */
export async function logPage(c: Context<RegistryEnv>, rc: RegistryContext) {
  const { path, search } = where(c);
  const { before } = readLogQuery(search);
  const page = await answer(() =>
    readLog(rc, { order: "desc", before: before || undefined, limit: String(LOG_PAGE) })
  );
  const data = { [wholeLogUrl(before || undefined)]: page };
  return renderedPage("registry", {
    title: "Audit log · Signet registry",
    body: renderRegistry(path, search, data),
    data,
  });
}

/** The 404 page of a path nothing serves (browsers only: the caller answers JSON to others). */
export function unknownPage(c: Context): Response {
  const { path, search } = where(c);
  return renderedPage("registry", {
    title: "Page not found · Signet registry",
    body: renderRegistry(path, search, {}),
    status: 404,
  });
}

/** Whether `c` is a browser's GET or HEAD of a page (not under the API's `/v1`). */
export function isPageRequest(c: Context): boolean {
  const path = c.req.path;
  const api = path === "/v1" || path.startsWith("/v1/");
  return !api && wantsHtml(c) && (c.req.method === "GET" || c.req.method === "HEAD");
}
