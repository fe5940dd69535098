/**
 * Search: `q` is a case-insensitive substring of bot_id, name or description; `status` and
 * `capability` are exact filters; results are ordered by bot_id ascending (a stable order), and
 * `cursor` is an opaque token for the page after the last result of the previous one.
 */
import { searchBotRecords } from "../../db/registry_bots.ts";
import { DomainError } from "../domain/errors.ts";
import { decodeBase64Url, encodeBase64Url } from "./base64url.ts";
import type { RegistryContext } from "./context.ts";
import { BOT_ID_PATTERN } from "./schemas.ts";

/** Default page size. */
export const SEARCH_DEFAULT_LIMIT = 20;
/** Largest page size. */
export const SEARCH_MAX_LIMIT = 100;

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

/** Runs one search page; returns the SearchResponse JSON text. */
export function searchBots(rc: RegistryContext, params: SearchParams): string {
  const limit = parseLimit(params.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
  const status = params.status || null;
  if (status !== null && status !== "active" && status !== "revoked") {
    throw new DomainError("invalid", 'status must be "active" or "revoked"');
  }
  const q = params.q?.trim() || null;
  if (q !== null && q.length > 200) {
    throw new DomainError("invalid", "q is longer than 200 characters");
  }
  const capability = params.capability?.trim().toLowerCase() || null;
  const rows = searchBotRecords(rc.db, {
    q,
    status,
    capability,
    after: params.cursor ? decodeCursor(params.cursor) : null,
    limit: limit + 1,
  }, rc.broadTerms);
  const page = rows.slice(0, limit);
  // The stored records are the JSON of each Bot already: spliced, not parsed and re-serialized.
  const cursor = rows.length > limit ? encodeCursor(page[page.length - 1].botId) : null;
  return `{"results":[${page.map((r) => r.record).join(",")}],"next_cursor":${
    JSON.stringify(cursor)
  }}`;
}

/**
 * A bounded memory of search terms with many index hits, so later searches for them skip the
 * index probe. Only a plan hint: both plans return the same rows, so a stale entry costs time only.
 */
export class BroadTerms {
  #terms = new Map<string, number>();
  constructor(private readonly max = 1000, private readonly ttlMs = 60_000) {}

  /** True when `term` was recorded as broad within the last `ttlMs`. */
  has(term: string): boolean {
    const at = this.#terms.get(term);
    if (at === undefined) return false;
    if (Date.now() - at <= this.ttlMs) return true;
    this.#terms.delete(term);
    return false;
  }

  /** Records `term` as broad (forgetting the oldest entry when full). */
  add(term: string): void {
    this.#terms.delete(term);
    if (this.#terms.size >= this.max) this.#terms.delete(this.#terms.keys().next().value!);
    this.#terms.set(term, Date.now());
  }
}

function encodeCursor(botId: string): string {
  return encodeBase64Url(new TextEncoder().encode(`after:${botId}`));
}

function decodeCursor(cursor: string): string {
  const bytes = decodeBase64Url(cursor);
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  const id = text.startsWith("after:") ? text.slice(6) : "";
  if (!BOT_ID_PATTERN.test(id)) throw new DomainError("invalid", "cursor is not valid");
  return id;
}
