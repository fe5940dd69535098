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
import {
  type ListView,
  type MoreList,
  readListView,
  type ReadResult,
  viewReads,
} from "../../../ui/registry/bot/more.ts";
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
          sort: query.sort,
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
 * The answers that show `view` of one of a bot page's lists (ui/registry/bot/more.ts), into
 * `data` under the URLs `url` names: read in turn as the browser would (`viewReads`), up to the
 * first error, which the page then shows.
 */
async function readView(
  data: Record<string, Preloaded>,
  view: ListView,
  url: (cursor: string | undefined, limit: number) => string,
  read: (cursor: string | undefined, limit: number) => Promise<ReadResult & { answer: unknown }>,
): Promise<void> {
  const reads = viewReads(view);
  for (let r = reads.next(); !r.done;) {
    const { cursor, limit } = r.value;
    let found: ReadResult = { count: 0, next: null };
    data[url(cursor, limit)] = await answer(async () => {
      const { answer, ...result } = await read(cursor, limit);
      found = result;
      return answer;
    });
    r = reads.next(found);
  }
}

/**
 * `GET /bots/{bot_id}`: the bot with its attestations (both ways), its log and the bots it
 * controls, as many pages of each as the URL says (`received_pages`, `log_from`, …; one by
 * default). A bot that does not exist is the 404 page to a browser and JSON to others, as before.
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
    const view = (list: MoreList) => readListView(search, list);
    const attestations = (role: "subject" | "issuer") =>
      readView(
        data,
        view(role === "subject" ? "received" : "issued"),
        (cursor, limit) => attestationsUrl(id, role, cursor, limit),
        async (cursor, limit) => {
          const page = await attestationsOf(rc, id, { role, cursor: cursor ?? null, limit });
          return { answer: page, count: page.attestations.length, next: page.next_cursor };
        },
      );
    const before = (cursor?: string) => cursor === undefined ? undefined : Number(cursor);
    await Promise.all([
      attestations("subject"),
      attestations("issuer"),
      readView(
        data,
        view("log"),
        (cursor, limit) => logUrl(id, before(cursor), limit),
        async (cursor, limit) => {
          const page = await readLog(rc, {
            botId: id,
            order: "desc",
            before: cursor,
            limit: String(limit),
          });
          const next = page.next_before ?? null;
          return {
            answer: page,
            count: page.entries.length,
            next: next === null ? null : String(next),
          };
        },
      ),
      readView(
        data,
        view("controls"),
        (cursor, limit) => controlledUrl(id, cursor, limit),
        async (cursor, limit) => {
          const page = await controlledBots(rc, id, { cursor, limit: String(limit) });
          return { answer: page, count: page.bots.length, next: page.next_cursor };
        },
      ),
    ]);
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
