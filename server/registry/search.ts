/**
 * Search: `q` is a case-insensitive substring of bot_id, name or description; `status` and
 * `capability` are exact filters; results are ordered by `sort` (bot_id ascending by default; a
 * stable order: every other sort breaks ties by bot_id), and `cursor` is an opaque token for the
 * page after the last result of the previous one, valid in the sort it came from. The text
 * parameters refuse control characters: SQLite's LIKE ends a pattern at a NUL (so `q=%00` would
 * match every bot) and FTS5 refuses one in a phrase.
 */
import type { BotHit, BotHitBytes, BotQuery, PlanMemory } from "../../db/registry_bots.ts";
import { BOT_SORTS, type BotSort } from "../../protocol/registry/search_sort.ts";
import type { Store } from "../../db/store.ts";
import { DomainError } from "../../protocol/errors.ts";
import { decodeBase64Url, encodeBase64Url } from "../../protocol/registry/base64url.ts";
import { BOT_ID_PATTERN } from "../../protocol/registry/bot_id.ts";

/** Default page size. */
export const SEARCH_DEFAULT_LIMIT = 20;
/** Largest page size. */
export const SEARCH_MAX_LIMIT = 100;
/** Longest `q`, in characters (code points), after trimming spaces. */
export const SEARCH_MAX_QUERY = 200;

/** Search parameters as received (strings from the query). */
export interface SearchParams {
  q?: string;
  status?: string;
  capability?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
}

/** Parses a `limit` query value: default when absent, 400 when not an integer in range. */
export function parseLimit(value: string | undefined, def: number, max: number): number {
  if (value === undefined || value === "") return def;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new DomainError("invalid", `limit must be an integer from 1 to ${max}`);
  }
  return Number(value);
}

/** What a search reads: the store and a planner memory (a RegistryContext is one). */
export interface SearchContext {
  store: Store;
  searchPlans: PlanMemory;
}

/** Runs one search page; returns the SearchResponse JSON text. */
export async function searchBots(rc: SearchContext, params: SearchParams): Promise<string> {
  const plan = planSearch(params);
  return searchPage(await rc.store.bots.search(plan.query, rc.searchPlans), plan);
}

/** A validated search: the store query (one row more than a page, to see if another follows). */
export interface SearchPlan {
  query: BotQuery;
  sort: BotSort;
  limit: number;
}

/** Parses a `sort` query value: bot_id when absent, 400 when not one of BOT_SORTS. */
export function parseSort(value: string | undefined): BotSort {
  if (value === undefined || value === "") return "bot_id";
  if (!(BOT_SORTS as readonly string[]).includes(value)) {
    throw new DomainError("invalid", `sort must be one of ${BOT_SORTS.join(", ")}`);
  }
  return value as BotSort;
}

/** Validates search parameters into the query to run; 400 for bad ones. */
export function planSearch(params: SearchParams): SearchPlan {
  const limit = parseLimit(params.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
  const status = params.status || null;
  if (status !== null && status !== "active" && status !== "revoked") {
    throw new DomainError("invalid", 'status must be "active" or "revoked"');
  }
  const q = searchText("q", params.q) || null;
  if (q !== null && [...q].length > SEARCH_MAX_QUERY) {
    throw new DomainError("invalid", `q is longer than ${SEARCH_MAX_QUERY} characters`);
  }
  const capability = searchText("capability", params.capability)?.toLowerCase() || null;
  const sort = parseSort(params.sort);
  const query: BotQuery = { q, status, capability, after: null, limit: limit + 1 };
  if (sort !== "bot_id") query.sort = sort;
  if (params.cursor && sort === "bot_id") query.after = decodeCursor(params.cursor);
  else if (params.cursor) [query.afterKey, query.after] = decodeSortCursor(params.cursor, sort);
  return { query, sort, limit };
}

/** The SearchResponse JSON text of a page, from the rows `planSearch`'s query returned. */
export function searchPage(rows: BotHit[], plan: { sort: BotSort; limit: number }): string {
  const { page, cursor } = pageOf(rows, plan);
  // The stored records are the JSON of each Bot already: spliced, not parsed and re-serialized.
  return PAGE_HEAD + page.map((r) => r.record).join(",") + pageTail(cursor);
}

/** A page's JSON before its records, and after them (with the cursor): both forms build on these. */
const PAGE_HEAD = '{"results":[';
const pageTail = (cursor: string | null) => `],"next_cursor":${JSON.stringify(cursor)}}`;

/**
 * searchPage's response as UTF-8 bytes. Rows whose records are the stored bytes are spliced as
 * they are: the same bytes as searchPage's text encoded, without the records becoming strings.
 */
export function searchPageBytes(
  rows: BotHit[] | BotHitBytes[],
  plan: { sort: BotSort; limit: number },
): Uint8Array {
  if (rows.length === 0 || typeof rows[0].record === "string") {
    return utf8.encode(searchPage(rows as BotHit[], plan));
  }
  const { page, cursor } = pageOf(rows as BotHitBytes[], plan);
  const tail = utf8.encode(pageTail(cursor));
  let size = PAGE_HEAD_BYTES.length + tail.length + Math.max(0, page.length - 1);
  for (const r of page) size += r.record.length;
  const out = new Uint8Array(size);
  out.set(PAGE_HEAD_BYTES);
  let at = PAGE_HEAD_BYTES.length;
  page.forEach((r, i) => {
    if (i > 0) out[at++] = COMMA;
    out.set(r.record, at);
    at += r.record.length;
  });
  out.set(tail, at);
  return out;
}

const utf8 = new TextEncoder();
const PAGE_HEAD_BYTES = utf8.encode(PAGE_HEAD);
const COMMA = 0x2c;

/** A page's rows (the query asked for one more than the limit) and the cursor after them. */
function pageOf<T extends { botId: string; key?: string }>(
  rows: T[],
  plan: { sort: BotSort; limit: number },
): { page: T[]; cursor: string | null } {
  const { limit, sort } = plan;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const cursor = rows.length <= limit
    ? null
    : sort === "bot_id"
    ? encodeCursor(last.botId)
    : encodeSortCursor(sort, last.key ?? "", last.botId);
  return { page, cursor };
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** A text parameter without its surrounding spaces; 400 when it holds a control character. */
function searchText(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && CONTROL.test(value)) {
    throw new DomainError(
      "invalid",
      `${name} must not contain control characters (U+0000 to U+001F, U+007F)`,
    );
  }
  return value?.trim();
}

/** A bounded memory of values that expire after `ttlMs` (the search planner's hints). */
export class Memo<V> {
  #entries = new Map<string, { value: V; at: number }>();
  constructor(private readonly max: number, private readonly ttlMs: number) {}

  /** The value stored for `key` within the last `ttlMs`, if any. */
  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    if (Date.now() - e.at <= this.ttlMs) return e.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Forgets every value. */
  clear(): void {
    this.#entries.clear();
  }

  /** Stores `value` for `key` (forgetting the oldest entry when full). */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, at: Date.now() });
  }
}

/**
 * A fresh planner memory: broad terms and trigram counts for ten minutes. Finding a term broad
 * costs an index probe of up to 501 hits (15–35 ms at 1,000,000 bots, on the thread that answers
 * searches, with every search behind it waiting); remembered for only a minute, each common word
 * paid it again every minute and search p99 under 16 connections was 184 ms at that size. A stale
 * verdict only picks the ordered scan for a term that has since become rare: still correct.
 */
export function planMemory(): PlanMemory {
  return { broad: new Memo(1000, 600_000), trigramDocs: new Memo(20_000, 600_000) };
}

/** The opaque cursor of the page after bot `botId` (search and other lists in bot_id order). */
export function encodeCursor(botId: string): string {
  return encodeBase64Url(new TextEncoder().encode(`after:${botId}`));
}

/** The bot id of a cursor from `encodeCursor`; 400 when it is not one. */
export function decodeCursor(cursor: string): string {
  const bytes = decodeBase64Url(cursor);
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  const id = text.startsWith("after:") ? text.slice(6) : "";
  if (!BOT_ID_PATTERN.test(id)) {
    throw new DomainError(
      "invalid",
      text.startsWith("[") ? OTHER_SORT("bot_id") : "cursor is not valid",
    );
  }
  return id;
}

/** The longest sort key a cursor may hold, in UTF-16 code units (a name is at most 100 characters). */
const MAX_CURSOR_KEY = 400;

const OTHER_SORT = (sort: BotSort) =>
  `cursor belongs to another sort than ${sort}: start from the first page`;

/**
 * The opaque cursor of the page after the bot `botId` whose sort key is `key`, in `sort` (not
 * bot_id): base64url of the JSON `[sort, key, botId]`.
 */
export function encodeSortCursor(sort: BotSort, key: string, botId: string): string {
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify([sort, key, botId])));
}

/**
 * The sort key and bot id of a cursor from `encodeSortCursor` for `sort`; 400 when it is not one,
 * or is one of another sort (a link kept from before the sort changed).
 */
export function decodeSortCursor(cursor: string, sort: BotSort): [string, string] {
  const invalid = () => new DomainError("invalid", "cursor is not valid");
  const bytes = decodeBase64Url(cursor);
  if (!bytes) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    if (new TextDecoder().decode(bytes).startsWith("after:")) {
      throw new DomainError("invalid", OTHER_SORT(sort));
    }
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 3) throw invalid();
  const [of, key, id] = value;
  if (typeof of !== "string" || typeof key !== "string" || typeof id !== "string") throw invalid();
  if (key.length > MAX_CURSOR_KEY || !BOT_ID_PATTERN.test(id)) throw invalid();
  if (of !== sort) throw new DomainError("invalid", OTHER_SORT(sort));
  return [key, id];
}
