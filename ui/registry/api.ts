/** Read-only calls to the registry API on this origin; the browser never holds a credential. */
import { requestJson } from "../common/api.ts";
import type {
  AttestationList,
  Bot,
  ControlledBots,
  LogPage,
  SearchCounts,
  SearchResponse,
  Stats,
} from "./types.ts";

/** Search filters as they appear in the page URL. */
export interface SearchQuery {
  q: string;
  status: string;
  capability: string;
  /** The order (`name`, `-created`, …); empty for the default, by bot id. */
  sort: string;
  cursor: string;
  /** Page size; empty for the default. */
  limit: string;
}

/** Results per page. */
export const PAGE_SIZE = 20;
/** The largest page the registry serves (`limit`). */
export const MAX_PAGE_SIZE = 100;

function query(params: Record<string, string | number | undefined>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : "";
}

/** The URL of a search page (also the key of its preloaded answer). */
export function searchUrl(q: SearchQuery): string {
  const { q: text, status, capability, sort, cursor, limit } = q;
  return `/v1/search${
    query({ q: text, status, capability, sort, cursor, limit: limit || PAGE_SIZE })
  }`;
}

/** GET /v1/search */
export function searchBots(q: SearchQuery): Promise<SearchResponse> {
  return requestJson(searchUrl(q));
}

/** The URL of a search's total and facets (its order, cursor and page size do not matter). */
export function countsUrl(q: SearchQuery): string {
  const { q: text, status, capability } = q;
  return `/v1/search/counts${query({ q: text, status, capability })}`;
}

/** GET /v1/search/counts */
export function getCounts(q: SearchQuery): Promise<SearchCounts> {
  return requestJson(countsUrl(q));
}

/** The URL of the registry's statistics. */
export const STATS_URL = "/v1/stats";

/** GET /v1/stats */
export function getStats(): Promise<Stats> {
  return requestJson(STATS_URL);
}

/** The URL of bot `id`. */
export function botUrl(id: string): string {
  return `/v1/bots/${encodeURIComponent(id)}`;
}

/** GET /v1/bots/{id} */
export function getBot(id: string): Promise<Bot> {
  return requestJson(botUrl(id));
}

/** Whose attestations: those about the bot (`subject`) or those it made (`issuer`). */
export type AttestationRole = "subject" | "issuer";

/**
 * Items per page of each list on a bot's page: its attestations, the bots it controls (the API's
 * default page) and its log.
 */
export const BOT_LIST_PAGE = 20;

/** `limit` as a URL has it: absent for the API's default page. */
const pageLimit = (limit?: number) => limit === BOT_LIST_PAGE ? undefined : limit;

/** The URL of a page of bot `id`'s attestations in `role` (`limit` items, default 20). */
export function attestationsUrl(
  id: string,
  role: AttestationRole,
  cursor?: string,
  limit?: number,
): string {
  return `/v1/bots/${encodeURIComponent(id)}/attestations${
    query({ role, cursor, limit: pageLimit(limit) })
  }`;
}

/** GET /v1/bots/{id}/attestations?role= */
export function getAttestations(
  id: string,
  role: AttestationRole,
  cursor?: string,
  limit?: number,
): Promise<AttestationList> {
  return requestJson(attestationsUrl(id, role, cursor, limit));
}

/** The URL of a page of the bots bot `id` controls (`limit` items, default 20). */
export function controlledUrl(id: string, cursor?: string, limit?: number): string {
  return `/v1/bots/${encodeURIComponent(id)}/controlled${
    query({ cursor, limit: pageLimit(limit) })
  }`;
}

/** GET /v1/bots/{id}/controlled */
export function getControlled(
  id: string,
  cursor?: string,
  limit?: number,
): Promise<ControlledBots> {
  return requestJson(controlledUrl(id, cursor, limit));
}

/** Log entries per page of the whole log. */
export const LOG_PAGE = 50;

/** The URL of a page of bot `id`'s audit log, newest first, before seq `before`. */
export function logUrl(id: string, before?: number, limit = BOT_LIST_PAGE): string {
  return `/v1/bots/${encodeURIComponent(id)}/log${query({ order: "desc", limit, before })}`;
}

/** GET /v1/bots/{id}/log?order=desc */
export function getLog(id: string, before?: number, limit?: number): Promise<LogPage> {
  return requestJson(logUrl(id, before, limit));
}

/** The URL of a page of the whole audit log, newest first, before seq `before`. */
export function wholeLogUrl(before?: string): string {
  return `/v1/log${query({ order: "desc", limit: LOG_PAGE, before })}`;
}

/** GET /v1/log?order=desc */
export function getWholeLog(before?: string): Promise<LogPage> {
  return requestJson(wholeLogUrl(before));
}
