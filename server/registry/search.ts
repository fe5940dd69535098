/**
 * Search: `q` is a case-insensitive substring of bot_id, name or description; `status` and
 * `capability` are exact filters; results are ordered by bot_id ascending (a stable order), and
 * `cursor` is an opaque token for the page after the last result of the previous one. The text
 * parameters refuse control characters: SQLite's LIKE ends a pattern at a NUL (so `q=%00` would
 * match every bot) and FTS5 refuses one in a phrase.
 */
import type { BotHit, BotQuery, PlanMemory } from "../../db/registry_bots.ts";
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
  return searchPage(await rc.store.bots.search(plan.query, rc.searchPlans), plan.limit);
}

/** A validated search: the store query (one row more than a page, to see if another follows). */
export interface SearchPlan {
  query: BotQuery;
  limit: number;
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
  return {
    query: {
      q,
      status,
      capability,
      after: params.cursor ? decodeCursor(params.cursor) : null,
      limit: limit + 1,
    },
    limit,
  };
}

/** The SearchResponse JSON text of a page, from the rows `planSearch`'s query returned. */
export function searchPage(rows: BotHit[], limit: number): string {
  const page = rows.slice(0, limit);
  // The stored records are the JSON of each Bot already: spliced, not parsed and re-serialized.
  const cursor = rows.length > limit ? encodeCursor(page[page.length - 1].botId) : null;
  return `{"results":[${page.map((r) => r.record).join(",")}],"next_cursor":${
    JSON.stringify(cursor)
  }}`;
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
  if (!BOT_ID_PATTERN.test(id)) throw new DomainError("invalid", "cursor is not valid");
  return id;
}
