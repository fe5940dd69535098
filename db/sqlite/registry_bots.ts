/**
 * Registry bot records and their derived index rows (keys, capabilities, controllers, search) on
 * SQLite. The free functions are synchronous: the connection guard's thread reads through them.
 */
import type { Database } from "./database.ts";
import type {
  BotHit,
  BotMatch,
  BotQuery,
  BotSort,
  BotStore,
  BotWrite,
  CapabilityCount,
  PlanMemory,
  RegistryCounts,
} from "../registry_bots.ts";
import { botHit, botRowValues } from "../registry_bots.ts";
import type { Sync } from "./sync.ts";
import { followRegistrySize, rarestWindow, sizeCheckDue } from "../search_plan.ts";

/** The stored JSON record of `botId` and its version, or undefined. */
export function loadBotRow(
  db: Database,
  botId: string,
): { record: string; version: number } | undefined {
  const row = db.prepare("SELECT record, version FROM registry_bots WHERE bot_id = ?").get(botId) as
    | { record: string; version: number }
    | undefined;
  return row && { record: row.record, version: Number(row.version) };
}

/** `loadBotRow` with the record as its UTF-8 bytes (for writing it out without re-encoding). */
export function loadBotRowBytes(
  db: Database,
  botId: string,
): { record: Uint8Array; version: number } | undefined {
  const row = db.prepare(
    "SELECT CAST(record AS BLOB) AS record, version FROM registry_bots WHERE bot_id = ?",
  ).get(botId) as { record: Uint8Array; version: number } | undefined;
  return row && { record: row.record, version: Number(row.version) };
}

/** Inserts or replaces a bot and rewrites its index rows; call inside a transaction. */
export function saveBot(db: Database, bot: BotWrite): void {
  const inserted = db.prepare(
    `INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bot_id) DO NOTHING`,
  ).run(...botRowValues(bot)).changes === 1;
  if (!inserted) {
    db.prepare(
      "UPDATE registry_bots SET status = ?, record = ?, version = ?, updated_at = ? WHERE bot_id = ?",
    ).run(bot.status, bot.record, bot.version, bot.updatedAt, bot.botId);
    // Only a changed text re-indexes (the search index trigger fires on any SET of the column).
    db.prepare(
      "UPDATE registry_bots SET search_text = ? WHERE bot_id = ? AND search_text IS NOT ?",
    ).run(bot.searchText, bot.botId, bot.searchText);
    for (const table of ["registry_keys", "registry_capabilities", "registry_controllers"]) {
      db.prepare(`DELETE FROM ${table} WHERE bot_id = ?`).run(bot.botId);
    }
  }
  const key = db.prepare(
    "INSERT INTO registry_keys (bot_id, key_id, public_key, status) VALUES (?, ?, ?, ?)",
  );
  for (const k of bot.keys) key.run(bot.botId, k.keyId, k.publicKey, k.status);
  const cap = db.prepare("INSERT INTO registry_capabilities (capability, bot_id) VALUES (?, ?)");
  for (const c of bot.capabilities) cap.run(c, bot.botId);
  const ctl = db.prepare("INSERT INTO registry_controllers (bot_id, controller_id) VALUES (?, ?)");
  for (const c of bot.controllers) ctl.run(bot.botId, c);
}

/**
 * Stored records matching `query`, in its order. Every plan reads rows in that order (an index of
 * it) and stops once the page is full, except when a filter matches few bots (a selective `q`;
 * with a sort other than bot_id also a rare capability or status): those few are sorted instead.
 */
export function searchBotRecords(db: Database, query: BotQuery, memory?: PlanMemory): BotHit[] {
  const rows = searchRows(db, query, "b.record", memory) as {
    bot_id: string;
    record: string;
    sort_key?: string;
  }[];
  return rows.map(botHit);
}

/** `searchBotRecords` without the records: ids and statuses, for counting. */
export function searchBotMatches(db: Database, query: BotQuery, memory?: PlanMemory): BotMatch[] {
  const rows = searchRows(db, query, "b.status", memory) as { bot_id: string; status: string }[];
  return rows.map((r) => ({ botId: r.bot_id, status: r.status }));
}

/** The capabilities of `botIds` with their counts (BotStore.capabilityCounts). */
export function countCapabilities(
  db: Database,
  botIds: string[],
  limit: number,
): CapabilityCount[] {
  if (botIds.length === 0) return [];
  const rows = db.prepare(
    `SELECT capability, COUNT(*) AS n FROM registry_capabilities
     WHERE bot_id IN (SELECT value FROM json_each(?))
     GROUP BY capability ORDER BY n DESC, capability LIMIT ?`,
  ).all(JSON.stringify(botIds), limit) as { capability: string; n: number }[];
  return rows.map((r) => ({ capability: r.capability, count: Number(r.n) }));
}

/** The rows (bot_id and `column`, and `sort_key` for a sort) of a search; see searchBotRecords. */
function searchRows(
  db: Database,
  query: BotQuery,
  column: string,
  memory?: PlanMemory,
): Record<string, unknown>[] {
  if (memory && sizeCheckDue(memory)) {
    const { n } = db.prepare("SELECT coalesce(max(rid), 0) AS n FROM registry_bots").get() as {
      n: number;
    };
    followRegistrySize(memory, Number(n));
  }
  if (query.sort !== undefined && query.sort !== "bot_id") {
    return sortedRows(db, query, query.sort, column, memory);
  }
  const where: [string, string | number][] = [];
  let from = "registry_bots b";
  let order = "b.bot_id";
  let hits: number[] | null = null;
  if (query.q !== null) {
    const text = textMatches(db, query.q, memory);
    hits = text.hits;
    if (hits === null) {
      // Test the text on the narrow (bot_id, search_text) index; fetch a row only for a hit.
      from = "registry_bots b INDEXED BY registry_bots_search_scan";
      where.push(["b.search_text LIKE ? ESCAPE '\\'", text.like]);
    } else if (hits.length === 0) {
      return [];
    } else {
      where.push(["b.rid IN (SELECT value FROM json_each(?))", JSON.stringify(hits)]);
      // The index was probed with a part of q: the rest is checked on the candidates.
      if (!text.exact) where.push(["b.search_text LIKE ? ESCAPE '\\'", text.like]);
    }
  }
  if (query.capability !== null) {
    if (hits === null) {
      // Walk the capability's index in bot_id order (CROSS JOIN keeps it the outer loop).
      from = `registry_capabilities c CROSS JOIN ${from} ON b.bot_id = c.bot_id`;
      order = "c.bot_id";
      where.push(["c.capability = ?", query.capability]);
    } else {
      where.push([
        "EXISTS (SELECT 1 FROM registry_capabilities c WHERE c.capability = ? AND c.bot_id = b.bot_id)",
        query.capability,
      ]);
    }
  }
  if (query.after !== null) where.push([`${order} > ?`, query.after]);
  if (query.status !== null) where.push(["b.status = ?", query.status]);
  const sql = `SELECT b.bot_id, ${column} FROM ${from}${
    where.length ? ` WHERE ${where.map(([w]) => w).join(" AND ")}` : ""
  } ORDER BY ${order} LIMIT ?`;
  return db.prepare(sql).all(...where.map(([, a]) => a), query.limit) as Record<string, unknown>[];
}

// Above this many trigram-index hits a term is "broad": an ordered scan fills a page sooner.
const BROAD_MATCH = 500;

/**
 * What the trigram index says of the search text `query` (lower-cased here): its LIKE pattern; the
 * rowids of the bots containing the part of it the index was probed with, or null when it is too
 * short to probe or broad (more than BROAD_MATCH hits; remembered in `memory`); and `exact` when
 * the hits are the answer (probed with the whole text) and need no LIKE test of their own.
 */
function textMatches(
  db: Database,
  query: string,
  memory?: PlanMemory,
): { like: string; hits: number[] | null; exact: boolean } {
  const q = query.toLowerCase();
  const like = `%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
  const indexable = [...q].length >= 3;
  const probe = indexable && !memory?.broad.get(q) ? selectivePart(db, q, memory) : null;
  const hits = probe === null ? null : indexHits(db, probe);
  if (hits === null && indexable) memory?.broad.set(q, true);
  return { like, hits, exact: hits !== null && probe === q };
}

/** The sort key's column and the index of (key, bot_id) of each sort but bot_id. */
const SORT_KEYS = {
  name: { column: "b.name_key", index: "registry_bots_name" },
  created: { column: "b.created_at", index: "registry_bots_created" },
  updated: { column: "b.updated_at", index: "registry_bots_updated" },
} as const;

/** The rows of a search in a sort other than bot_id (see sortedSearchStatement). */
function sortedRows(
  db: Database,
  query: BotQuery,
  sort: Exclude<BotSort, "bot_id">,
  column: string,
  memory?: PlanMemory,
): Record<string, unknown>[] {
  const statement = sortedSearchStatement(db, query, sort, column, memory);
  if (statement === null) return [];
  return db.prepare(statement.sql).all(...statement.params) as Record<string, unknown>[];
}

/**
 * The statement of a search page in a sort other than bot_id (exported for the plan tests'
 * EXPLAIN), or null when a filter's index found nothing. The filters that can tell how many bots
 * they match are asked in turn (`q`'s trigram index, the capability's index, the status index,
 * each read up to BROAD_MATCH + 1 rows): the first that matches at most BROAD_MATCH bots gives the
 * candidates, which are read by rowid and sorted. Otherwise every filter is broad, and the sort's
 * own index is walked in order (forwards or backwards), testing each row until the page is full.
 */
export function sortedSearchStatement(
  db: Database,
  query: BotQuery,
  sort: Exclude<BotSort, "bot_id">,
  column = "b.record",
  memory?: PlanMemory,
): { sql: string; params: (string | number)[] } | null {
  const desc = sort.startsWith("-");
  const key = SORT_KEYS[(desc ? sort.slice(1) : sort) as keyof typeof SORT_KEYS];
  const where: [string, string | number][] = [];
  let candidates: number[] | null = null;
  if (query.q !== null) {
    const text = textMatches(db, query.q, memory);
    candidates = text.hits;
    // The index was probed with a part of q (or not at all): q itself is checked on each row.
    if (!text.exact) where.push(["b.search_text LIKE ? ESCAPE '\\'", text.like]);
  }
  if (query.capability !== null) {
    candidates ??= fewRows(
      db,
      "SELECT b.rid FROM registry_capabilities c JOIN registry_bots b ON b.bot_id = c.bot_id WHERE c.capability = ?",
      query.capability,
      `\ncapability\n${query.capability}`,
      memory,
    );
    where.push([
      "EXISTS (SELECT 1 FROM registry_capabilities c WHERE c.capability = ? AND c.bot_id = b.bot_id)",
      query.capability,
    ]);
  }
  if (query.status !== null) {
    candidates ??= fewRows(
      db,
      "SELECT rid FROM registry_bots INDEXED BY registry_bots_status WHERE status = ?",
      query.status,
      `\nstatus\n${query.status}`,
      memory,
    );
    where.push(["b.status = ?", query.status]);
  }
  if (candidates !== null) {
    if (candidates.length === 0) return null;
    where.push(["b.rid IN (SELECT value FROM json_each(?))", JSON.stringify(candidates)]);
  }
  const params: (string | number)[] = where.map(([, a]) => a);
  const conds = where.map(([w]) => w);
  if (query.after !== null) {
    conds.push(`(${key.column}, b.bot_id) ${desc ? "<" : ">"} (?, ?)`);
    params.push(query.afterKey ?? "", query.after);
  }
  const dir = desc ? "DESC" : "ASC";
  // Candidates are looked up by rowid (NOT INDEXED keeps SQLite from walking an index instead);
  // without them the sort's index is named, so a missing index is an error, not a slow plan.
  const from = `registry_bots b ${candidates !== null ? "NOT INDEXED" : `INDEXED BY ${key.index}`}`;
  const sql = `SELECT b.bot_id, ${column}, ${key.column} AS sort_key FROM ${from}${
    conds.length ? ` WHERE ${conds.join(" AND ")}` : ""
  } ORDER BY ${key.column} ${dir}, b.bot_id ${dir} LIMIT ?`;
  return { sql, params: [...params, query.limit] };
}

/**
 * The rowids `sql` (one parameter, `value`) selects when there are at most BROAD_MATCH, else null
 * (remembered in `memory` under `memo`, so a broad filter is not counted again for a while).
 */
function fewRows(
  db: Database,
  sql: string,
  value: string,
  memo: string,
  memory?: PlanMemory,
): number[] | null {
  if (memory?.broad.get(memo)) return null;
  const rows = db.prepare(`${sql} LIMIT ?`).all(value, BROAD_MATCH + 1) as { rid: number }[];
  if (rows.length <= BROAD_MATCH) return rows.map((r) => Number(r.rid));
  memory?.broad.set(memo, true);
  return null;
}

// The rowids of bots whose search text contains `text` (3+ characters), or null when there are
// more than BROAD_MATCH.
function indexHits(db: Database, text: string): number[] | null {
  const rows = db.prepare(
    "SELECT rowid AS rid FROM registry_search WHERE registry_search MATCH ? LIMIT ?",
  ).all(`"${text.replace(/"/g, '""')}"`, BROAD_MATCH + 1) as { rid: number }[];
  return rows.length > BROAD_MATCH ? null : rows.map((r) => Number(r.rid));
}

/**
 * The part of `q` to probe the trigram index with. An index lookup costs per trigram and grows
 * with how many bots hold it, so for ASCII terms longer than a few characters this is the window
 * around q's rarest trigram (neighbours at most a few times as common, up to 4 trigrams): e.g.
 * `seed-01234` probes `01234` instead of also walking `see`, `eed`, … which every seeded bot has.
 */
function selectivePart(db: Database, q: string, memory?: PlanMemory): string {
  // deno-lint-ignore no-control-regex
  if (!memory || q.length <= 6 || !/^[\x00-\x7f]*$/.test(q)) return q;
  const counts = Array.from({ length: q.length - 2 }, (_, i) => {
    const trigram = q.slice(i, i + 3);
    let n = memory.trigramDocs.get(trigram);
    if (n === undefined) memory.trigramDocs.set(trigram, n = trigramDocs(db, trigram));
    return n;
  });
  return rarestWindow(q, counts);
}

const vocabularies = new WeakSet<Database>();

// How many bots' search text holds `trigram` (from the index's vocabulary).
function trigramDocs(db: Database, trigram: string): number {
  if (!vocabularies.has(db)) {
    db.exec(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.registry_search_vocab USING fts5vocab(main, registry_search, 'row')",
    );
    vocabularies.add(db);
  }
  const row = db.prepare("SELECT doc FROM temp.registry_search_vocab WHERE term = ?").get(
    trigram,
  ) as { doc: number } | undefined;
  return Number(row?.doc ?? 0);
}

/** The records of the bots `controllerId` controls (BotStore.controlled). */
export function controlledBots(
  db: Database,
  controllerId: string,
  after: string | null,
  limit: number,
): BotHit[] {
  const rows = db.prepare(
    `SELECT b.bot_id, b.record FROM registry_controllers c
     JOIN registry_bots b ON b.bot_id = c.bot_id
     WHERE c.controller_id = ? AND c.bot_id > ? ORDER BY c.bot_id LIMIT ?`,
  ).all(controllerId, after ?? "", limit) as { bot_id: string; record: string }[];
  return rows.map((r) => ({ botId: r.bot_id, record: r.record }));
}

/** Counts bots and keys by status, and controller links. */
export function countBots(db: Database): RegistryCounts {
  const group = (sql: string) =>
    Object.fromEntries(
      (db.prepare(sql).all() as { status: string; n: number }[]).map((r) => [r.status, r.n]),
    );
  return {
    botsByStatus: group("SELECT status, COUNT(*) AS n FROM registry_bots GROUP BY status"),
    keysByStatus: group("SELECT status, COUNT(*) AS n FROM registry_keys GROUP BY status"),
    controllers: Number(
      (db.prepare("SELECT COUNT(*) AS n FROM registry_controllers").get() as { n: number }).n,
    ),
  };
}

/** The bots store over one SQLite connection. */
export class SqliteBots implements Sync<BotStore> {
  /** The methods that write. */
  static readonly WRITES = ["save"] as const;
  constructor(private readonly db: Database) {}

  loadRow(botId: string): { record: string; version: number } | undefined {
    return loadBotRow(this.db, botId);
  }

  save(bot: BotWrite): void {
    saveBot(this.db, bot);
  }

  search(query: BotQuery, memory?: PlanMemory): BotHit[] {
    return searchBotRecords(this.db, query, memory);
  }

  matches(query: BotQuery, memory?: PlanMemory): BotMatch[] {
    return searchBotMatches(this.db, query, memory);
  }

  capabilityCounts(botIds: string[], limit: number): CapabilityCount[] {
    return countCapabilities(this.db, botIds, limit);
  }

  controlled(controllerId: string, after: string | null, limit: number): BotHit[] {
    return controlledBots(this.db, controllerId, after, limit);
  }

  counts(): RegistryCounts {
    return countBots(this.db);
  }
}
