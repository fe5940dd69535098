/** The registry's bots store: JSON records plus the index rows (keys, capabilities, controllers, search). */
import type { BotSort } from "../protocol/registry/search_sort.ts";

export type { BotSort } from "../protocol/registry/search_sort.ts";

/** What is stored for one bot: the JSON record plus the columns the indexes need. */
export interface BotWrite {
  botId: string;
  status: string;
  searchText: string;
  record: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  keys: { keyId: string; publicKey: string; status: string }[];
  capabilities: string[];
  controllers: string[];
}

/**
 * The registry_bots columns of `bot` in the order both engines insert them: bot_id, status,
 * search_text, record, version, created_at, updated_at.
 */
export function botRowValues(
  bot: BotWrite,
): [string, string, string, string, number, string, string] {
  return [
    bot.botId,
    bot.status,
    bot.searchText,
    bot.record,
    bot.version,
    bot.createdAt,
    bot.updatedAt,
  ];
}

/** Filters and order of one search page. */
export interface BotQuery {
  /** Case-insensitive substring of id, name or description. */
  q: string | null;
  status: string | null;
  capability: string | null;
  /** The order; bot_id ascending when absent. */
  sort?: BotSort;
  /** Only bots after this one in the order (keyset paging): its bot_id. */
  after: string | null;
  /** With a sort other than bot_id and `after`: that bot's sort key (as a BotHit gave it). */
  afterKey?: string;
  limit: number;
}

/** A bounded memory of values the search planner computed (see `PlanMemory`). */
export interface Memo<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  /** Forgets every value. */
  clear(): void;
}

/**
 * What a search planner may remember between searches: terms found to have many hits, and how
 * many bots contain each trigram. Only plan hints: every plan returns the same rows.
 */
export interface PlanMemory {
  broad: Memo<true>;
  trigramDocs: Memo<number>;
  /**
   * The registry's size when the hints were taken, and when it was last looked at: hints taken at
   * another size mislead (a trigram 10 times as common after a bulk import), so they are dropped
   * when it changed by half (see `followRegistrySize`).
   */
  size?: { rows: number; checkedAt: number };
}

/** One search hit: the bot id and its stored JSON record. */
export interface BotHit {
  botId: string;
  record: string;
  /** With a sort other than bot_id: the bot's sort key (what a cursor after it holds). */
  key?: string;
}

/**
 * A search's row with the record as the UTF-8 bytes the database sent, never decoded into a string
 * (the guard thread's searches on PostgreSQL; docs/decisions/storage.md, "Search rows as bytes").
 */
export interface BotHitBytes {
  botId: string;
  record: Uint8Array;
  /** As BotHit's. */
  key?: string;
}

/** A search's row as a BotHit, with its `sort_key` when the search had a sort other than bot_id. */
export function botHit(row: { bot_id: string; record: string; sort_key?: string }): BotHit {
  return row.sort_key === undefined
    ? { botId: row.bot_id, record: row.record }
    : { botId: row.bot_id, record: row.record, key: row.sort_key };
}

/** One match counted for a search's totals and facets: its id and status. */
export interface BotMatch {
  botId: string;
  status: string;
}

/** How many of some bots hold one capability. */
export interface CapabilityCount {
  capability: string;
  count: number;
}

/** Counts used by the stats endpoint. */
export interface RegistryCounts {
  botsByStatus: Record<string, number>;
  keysByStatus: Record<string, number>;
  controllers: number;
}

/** Bot records. */
export interface BotStore {
  /** The stored JSON record of `botId` and its version, if any. */
  loadRow(botId: string): Promise<{ record: string; version: number } | undefined>;
  /** Inserts or replaces a bot and rewrites its index rows; call inside a transaction. */
  save(bot: BotWrite): Promise<void>;
  /**
   * Stored records matching `query`, in its order (bot_id ascending by default); the same rows on
   * every engine for the same data. `memory` lets an engine remember plan hints between calls.
   */
  search(query: BotQuery, memory?: PlanMemory): Promise<BotHit[]>;
  /**
   * The ids and statuses of the bots `search` would return for `query` (same filters, order and
   * limit), without their records: what a search's total and facets are counted from.
   */
  matches(query: BotQuery, memory?: PlanMemory): Promise<BotMatch[]>;
  /**
   * The capabilities held by `botIds`, each with how many of them hold it: most common first,
   * ties by capability in byte order, at most `limit`.
   */
  capabilityCounts(botIds: string[], limit: number): Promise<CapabilityCount[]>;
  /**
   * The stored records of the bots that name `controllerId` among their controllers, ordered by
   * bot_id, after `after` (keyset paging), at most `limit`.
   */
  controlled(controllerId: string, after: string | null, limit: number): Promise<BotHit[]>;
  /** Bots and keys by status, and controller links. */
  counts(): Promise<RegistryCounts>;
}
