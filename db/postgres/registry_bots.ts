/** PostgreSQL registry bots store (see ../registry_bots.ts). */
import { rarestWindow } from "../search_plan.ts";
import type {
  BotHit,
  BotHitBytes,
  BotMatch,
  BotQuery,
  BotSort,
  BotStore,
  CapabilityCount,
  Memo,
  PlanMemory,
  RegistryCounts,
} from "../registry_bots.ts";
import { botHit, botRowValues } from "../registry_bots.ts";
import { changes, rows, type Sql } from "./sql.ts";

/**
 * The statements inserting one bot's index rows from JSON lists (no array types needed), reading
 * the bot's id, status and search text from `b`, its row: the one a statement inserts first (so
 * nothing is inserted when it inserted nothing), or the stored one after an update. Each capability
 * row carries the bot's status and search text as they are now (migration 5): an update of the bot
 * writes its capability rows again, whether or not they changed. `lists` are the three lists'
 * parameters.
 */
function indexRowInserts(from: string, lists: [string, string, string]): string[] {
  return [
    `INSERT INTO registry_keys (bot_id, key_id, public_key, status)
     SELECT b.bot_id, k."keyId", k."publicKey", k.status FROM ${from},
       jsonb_to_recordset(${
      lists[0]
    }::text::jsonb) AS k("keyId" text, "publicKey" text, status text)`,
    `INSERT INTO registry_capabilities (capability, bot_id, status, search_text)
     SELECT t.c, b.bot_id, b.status, b.search_text
     FROM ${from}, jsonb_array_elements_text(${lists[1]}::text::jsonb) AS t(c)`,
    `INSERT INTO registry_controllers (bot_id, controller_id)
     SELECT b.bot_id, t.c FROM ${from}, jsonb_array_elements_text(${
      lists[2]
    }::text::jsonb) AS t(c)`,
  ];
}

/** A new bot and its index rows in one statement; returns 1 when inserted, 0 when it existed. */
const INSERT_BOT = (() => {
  const [keys, capabilities, controllers] = indexRowInserts("b", ["$8", "$9", "$10"]);
  return `WITH b AS (
      INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (bot_id) DO NOTHING
      RETURNING bot_id, status, search_text
    ), k AS (${keys}), c AS (${capabilities}), n AS (${controllers})
    SELECT count(*)::int AS inserted FROM b`;
})();

/** An existing bot's index rows, inserted again after an update deleted them. */
const REINSERT_INDEX_ROWS = indexRowInserts(
  "(SELECT bot_id, status, search_text FROM registry_bots WHERE bot_id = $1) AS b",
  ["$2", "$2", "$2"],
);

/**
 * The stored rows of several bots in one statement, each record as the UTF-8 bytes PostgreSQL
 * sent (never decoded into a string and encoded again); unknown ids are absent from the map. The
 * guard thread's reads of many bots at once.
 */
export async function loadBotRowBytes(
  sql: Sql,
  botIds: string[],
): Promise<Map<string, { record: Uint8Array; version: number }>> {
  const found = await sql.unsafe(
    `SELECT b.bot_id, b.record, b.version
     FROM jsonb_array_elements_text($1::text::jsonb) AS w(id)
     JOIN registry_bots b ON b.bot_id = w.id`,
    [JSON.stringify(botIds)],
    { prepare: true },
  ).raw();
  const out = new Map<string, { record: Uint8Array; version: number }>();
  for (const [id, record, version] of found as unknown as Uint8Array[][]) {
    out.set(decoder.decode(id), { record, version: Number(decoder.decode(version)) });
  }
  return out;
}

/** UTF-8 as the database sent it: a leading U+FEFF is text, not a byte-order mark to drop. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Where and how a search statement runs (see pgBots): a stable one named on `sql`; one whose plan
 * depends on its values named on `customPlans` when given, else unnamed on `sql`.
 */
function searchRun(st: SearchStatement, sql: Sql, customPlans?: Sql): { sql: Sql; named: boolean } {
  if (st.stable) return { sql, named: true };
  return customPlans ? { sql: customPlans, named: true } : { sql, named: false };
}

/**
 * One search page's rows as pgBots' `search` finds them, each record as the UTF-8 bytes PostgreSQL
 * sent: a page is the records spliced together, so they need not become strings (the guard
 * thread's searches; docs/decisions/storage.md, "Search rows as bytes").
 */
export async function searchBotBytes(
  sql: Sql,
  query: BotQuery,
  memory: PlanMemory,
  customPlans?: Sql,
): Promise<BotHitBytes[]> {
  const st = await searchStatement(sql, query, memory);
  const run = searchRun(st, sql, customPlans);
  const found = await run.sql.unsafe(st.text, st.params as never[], { prepare: run.named }).raw();
  // Every search statement's columns: bot_id, record and, with a sort other than bot_id, sort_key
  // (a NOT NULL column).
  return (found as unknown as Uint8Array[][]).map(([id, record, key]) =>
    key === undefined
      ? { botId: decoder.decode(id), record }
      : { botId: decoder.decode(id), record, key: decoder.decode(key) }
  );
}

/**
 * The bots store over `sql`. A search whose best plan depends on its values (not `stable`) must be
 * planned for them at every run: it runs on `customPlans` when given, a pool whose connections set
 * `plan_cache_mode = force_custom_plan`, as a named statement (parsed once per connection); else
 * on `sql` as an unnamed statement, parsed and planned every time. Named, PostgreSQL parses and
 * describes it once per connection, and the client sends only its values: for a common word at
 * 100,000 bots, 210–245 µs of the client's CPU and 320–430 of PostgreSQL's per search, against
 * 270–410 and 430–555 unnamed (docs/decisions/storage.md).
 */
export function pgBots(sql: Sql, customPlans?: Sql): BotStore {
  /** Runs a search statement as its plan needs (see above). */
  const searchRows = <T>(st: SearchStatement): Promise<T[]> => {
    const run = searchRun(st, sql, customPlans);
    return rows<T>(run.sql, st.text, st.params, { planEachTime: !run.named });
  };
  return {
    async loadRow(botId) {
      return (await rows<{ record: string; version: number }>(
        sql,
        "SELECT record, version FROM registry_bots WHERE bot_id = $1",
        [botId],
      ))[0];
    },
    async save(bot) {
      const lists = [
        JSON.stringify(bot.keys),
        JSON.stringify(bot.capabilities),
        JSON.stringify(bot.controllers),
      ];
      // One round trip for a new bot (the common write); an existing one inserts nothing here.
      const [{ inserted }] = await rows<{ inserted: number }>(sql, INSERT_BOT, [
        ...botRowValues(bot),
        ...lists,
      ]);
      if (inserted === 1) return;
      // search_text is only SET when it changed, so the GIN index is not rewritten needlessly.
      await changes(
        sql,
        `UPDATE registry_bots SET status = $1, record = $2, version = $3, updated_at = $4,
           search_text = CASE WHEN search_text IS DISTINCT FROM $5 THEN $5 ELSE search_text END
         WHERE bot_id = $6`,
        [bot.status, bot.record, bot.version, bot.updatedAt, bot.searchText, bot.botId],
      );
      // Every index row is written again, the capability rows even when the list is unchanged:
      // they carry the bot's status and search text.
      for (const table of ["registry_keys", "registry_capabilities", "registry_controllers"]) {
        await changes(sql, `DELETE FROM ${table} WHERE bot_id = $1`, [bot.botId]);
      }
      for (const [i, insert] of REINSERT_INDEX_ROWS.entries()) {
        if (lists[i] !== "[]") await changes(sql, insert, [bot.botId, lists[i]]);
      }
    },
    /**
     * The same filters as SQLite's search: `q` is a substring of the lower-cased search text
     * (LIKE with `\` escaping `%`, `_` and `\`), bot_id in byte order ("C" collation). A rare
     * term is found through the pg_trgm GIN index; a capability with no term or a broad one walks
     * the capability's rows; otherwise the planner picks between the GIN index and walking bot_id
     * in order. All give the same rows.
     */
    async search(query, memory) {
      const found = await searchRows<{ bot_id: string; record: string; sort_key?: string }>(
        await searchStatement(sql, query, memory),
      );
      return found.map(botHit);
    },
    async matches(query, memory) {
      const found = await searchRows<{ bot_id: string; status: string }>(
        await searchStatement(sql, query, memory, "status"),
      );
      return found.map((r): BotMatch => ({ botId: r.bot_id, status: r.status }));
    },
    async capabilityCounts(botIds, limit) {
      if (botIds.length === 0) return [];
      const found = await rows<{ capability: string; n: number }>(
        sql,
        `SELECT capability, COUNT(*)::int AS n FROM registry_capabilities
         WHERE bot_id IN (SELECT jsonb_array_elements_text($1::text::jsonb))
         GROUP BY capability ORDER BY n DESC, capability COLLATE "C" LIMIT $2`,
        [JSON.stringify(botIds), limit],
      );
      return found.map((r): CapabilityCount => ({ capability: r.capability, count: Number(r.n) }));
    },
    async controlled(controllerId, after, limit) {
      const found = await rows<{ bot_id: string; record: string }>(
        sql,
        `SELECT b.bot_id, b.record FROM registry_controllers c
         JOIN registry_bots b ON b.bot_id = c.bot_id
         WHERE c.controller_id = $1 AND c.bot_id > $2 ORDER BY c.bot_id LIMIT $3`,
        [controllerId, after ?? "", limit],
      );
      return found.map((r): BotHit => ({ botId: r.bot_id, record: r.record }));
    },
    async counts(): Promise<RegistryCounts> {
      const group = async (table: string) =>
        Object.fromEntries(
          (await rows<{ status: string; n: number }>(
            sql,
            `SELECT status, COUNT(*) AS n FROM ${table} GROUP BY status`,
          )).map((r) => [r.status, r.n]),
        );
      const [{ n }] = await rows<{ n: number }>(
        sql,
        "SELECT COUNT(*) AS n FROM registry_controllers",
      );
      return {
        botsByStatus: await group("registry_bots"),
        keysByStatus: await group("registry_keys"),
        controllers: n,
      };
    },
  };
}

/**
 * The statement `search` runs for `query` (exported for the search bench's EXPLAIN), and whether
 * its best plan is the same for any values (`stable`): then it is a named statement, planned once
 * per connection, not at every search.
 */
export interface SearchStatement {
  text: string;
  params: unknown[];
  stable: boolean;
}

/** The statement `search` runs for `query` (see SearchStatement). */
export async function searchStatement(
  sql: Sql,
  query: BotQuery,
  memory?: PlanMemory,
  column: "record" | "status" = "record",
): Promise<SearchStatement> {
  const q = query.q?.toLowerCase() ?? null;
  const probe = q === null ? null : await probeFor(sql, q, memory ?? fallbackMemory);
  return searchSql(query, probe, column);
}

/**
 * The part of q to search the trigram index for, and what its trigram counts say of q:
 * - `rare`: fewer bots than COMMON hold q's rarest trigram; the index finds them all at little
 *   cost;
 * - `broad`: at least COMMON bots hold each of q's trigrams, or q has none (under 3 characters);
 *   the index cannot narrow it down;
 * - `uncounted`: q's trigrams were not counted (outside ASCII).
 */
interface Probe {
  text: string;
  kind: "rare" | "broad" | "uncounted";
}

/**
 * The SQL and parameters of one search page. The trigram index is searched for the probe only and
 * q itself is checked with strpos, which the index cannot serve: the same rows as `LIKE '%q%'`,
 * fewer index lists read. A rare probe's matches are collected first (MATERIALIZED), then sorted:
 * PostgreSQL's estimate of a `LIKE '%…%'` is a guess from its statistics, and when it guesses
 * hundreds of rows it walks bot_id in order to fill the page, reading every row when the real
 * matches are ten (40 ms at 100,000 bots instead of 1 ms). A common term keeps the ordered walk.
 */
function searchSql(
  query: BotQuery,
  probe: Probe | null,
  column: "record" | "status",
): SearchStatement {
  if (
    query.capability !== null && (query.q === null || probe?.kind === "broad") &&
    (query.sort ?? "bot_id") === "bot_id"
  ) {
    return {
      ...capabilityWalkSql({ ...query, capability: query.capability }, column),
      stable: true,
    };
  }
  const where: string[] = [];
  const params: unknown[] = [];
  const arg = (v: unknown) => `$${params.push(v)}`;
  if (query.q !== null) {
    const q = query.q.toLowerCase();
    if (probe === null || probe.text === q) {
      where.push(`b.search_text LIKE ${arg(like(q))} ESCAPE '\\'`);
    } else {
      where.push(`b.search_text LIKE ${arg(like(probe.text))} ESCAPE '\\'`);
      where.push(`strpos(b.search_text, ${arg(q)}) > 0`);
    }
  }
  if (query.capability !== null) {
    where.push(
      `EXISTS (SELECT 1 FROM registry_capabilities c
         WHERE c.capability = ${arg(query.capability)} AND c.bot_id = b.bot_id)`,
    );
  }
  const sort = query.sort ?? "bot_id";
  if (sort === "bot_id") {
    if (query.after !== null) where.push(`b.bot_id > ${arg(query.after)}`);
  } else if (query.after !== null) {
    where.push(
      `(${SORT_KEYS[sort].column}, b.bot_id) ${sort.startsWith("-") ? "<" : ">"} (${
        arg(query.afterKey ?? "")
      }, ${arg(query.after)})`,
    );
  }
  if (query.status !== null) where.push(`b.status = ${arg(query.status)}`);
  const filter = where.length ? ` WHERE ${where.join(" AND ")}` : "";
  if (sort !== "bot_id") {
    return { ...sortedSql(sort, probe, column, filter, arg(query.limit), params), stable: false };
  }
  const text = probe?.kind === "rare"
    ? `WITH hits AS MATERIALIZED (SELECT b.bot_id, b.${column} FROM registry_bots b${filter})
       SELECT bot_id, ${column} FROM hits ORDER BY bot_id LIMIT ${arg(query.limit)}`
    : `SELECT b.bot_id, b.${column} FROM registry_bots b${filter} ORDER BY b.bot_id LIMIT ${
      arg(query.limit)
    }`;
  // A rare probe's generic plan reads the trigram index whatever the pattern (0.08 ms, no
  // planning); with a capability it could walk the capability's rows instead, and a broad or
  // uncounted term's best plan depends on the term (docs/decisions/storage.md).
  return { text, params, stable: probe?.kind === "rare" && query.capability === null };
}

/** A LIKE pattern matching `text` anywhere (`\` escaping `%`, `_` and `\`). */
function like(text: string): string {
  return `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/**
 * A page of bots holding a capability, with no `q` or a broad one, in bot_id order: the
 * capability's rows are walked in bot_id order and `q` and the status checked on the status and
 * search text each row carries (migration 5), without reading the bots that lack the capability;
 * the records of the page's bots are read afterwards. Walking every bot instead read several
 * thousand rows for a page of 50 with a common word (docs/decisions/storage.md).
 */
function capabilityWalkSql(
  query: BotQuery & { capability: string },
  column: "record" | "status",
): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const arg = (v: unknown) => `$${params.push(v)}`;
  const where = [`c.capability = ${arg(query.capability)}`];
  if (query.q !== null) {
    where.push(`c.search_text LIKE ${arg(like(query.q.toLowerCase()))} ESCAPE '\\'`);
  }
  if (query.status !== null) where.push(`c.status = ${arg(query.status)}`);
  if (query.after !== null) where.push(`c.bot_id > ${arg(query.after)}`);
  const text = `SELECT b.bot_id, b.${column} FROM registry_bots b JOIN (
      SELECT c.bot_id FROM registry_capabilities c WHERE ${where.join(" AND ")}
      ORDER BY c.bot_id LIMIT ${arg(query.limit)}
    ) AS page ON page.bot_id = b.bot_id ORDER BY b.bot_id`;
  return { text, params };
}

/**
 * The sort key expression of each sort but bot_id (as its index has it: timestamps in byte
 * order, as SQLite compares them) and its direction.
 */
const SORT_KEYS: Record<Exclude<BotSort, "bot_id">, { column: string; dir: "ASC" | "DESC" }> = {
  name: { column: "b.name_key", dir: "ASC" },
  "-name": { column: "b.name_key", dir: "DESC" },
  created: { column: `(b.created_at COLLATE "C")`, dir: "ASC" },
  "-created": { column: `(b.created_at COLLATE "C")`, dir: "DESC" },
  updated: { column: `(b.updated_at COLLATE "C")`, dir: "ASC" },
  "-updated": { column: `(b.updated_at COLLATE "C")`, dir: "DESC" },
};

/**
 * A search page in a sort other than bot_id, with its rows' sort keys: a rare `q`'s matches are
 * collected first and sorted (as in bot_id order); otherwise PostgreSQL picks between walking the
 * sort's index of (key, bot_id) and sorting what a selective filter's index finds.
 */
function sortedSql(
  sort: Exclude<BotSort, "bot_id">,
  probe: Probe | null,
  column: "record" | "status",
  filter: string,
  limit: string,
  params: unknown[],
): { text: string; params: unknown[] } {
  const { column: key, dir } = SORT_KEYS[sort];
  const text = probe?.kind === "rare"
    ? `WITH hits AS MATERIALIZED (
         SELECT b.bot_id, b.${column}, ${key} AS sort_key FROM registry_bots b${filter})
       SELECT bot_id, ${column}, sort_key FROM hits
       ORDER BY sort_key ${dir}, bot_id ${dir} LIMIT ${limit}`
    : `SELECT b.bot_id, b.${column}, ${key} AS sort_key FROM registry_bots b${filter}
       ORDER BY ${key} ${dir}, b.bot_id ${dir} LIMIT ${limit}`;
  return { text, params };
}

// Counts at or above this are "common": such trigrams are only told apart from each other
// by being common, and counting past it would cost a long scan.
const COMMON = 2000;

/**
 * How to search the trigram index for `q`. A GIN lookup reads the posting list of every trigram
 * of the pattern, so for ASCII terms longer than a few characters this is the window around q's
 * rarest trigram (neighbours at most a few times as common, up to 4 trigrams), as the SQLite engine
 * does: `seed-01234` probes `01234` instead of also reading `see`, `eed`, … which every seeded bot
 * has. Trigram counts (capped at COMMON) are remembered in `memory`. Under 3 characters there is
 * no trigram, and outside ASCII no count: PostgreSQL's own estimate decides.
 */
async function probeFor(sql: Sql, q: string, memory: PlanMemory): Promise<Probe> {
  if (q.length < 3) return { text: q, kind: "broad" };
  // deno-lint-ignore no-control-regex
  if (!/^[\x00-\x7f]*$/.test(q)) return { text: q, kind: "uncounted" };
  const counts: number[] = [];
  for (let i = 0; i + 3 <= q.length; i++) {
    const trigram = q.slice(i, i + 3);
    let n = memory.trigramDocs.get(trigram);
    if (n === undefined) memory.trigramDocs.set(trigram, n = await trigramDocs(sql, trigram));
    counts.push(n);
  }
  if (Math.min(...counts) >= COMMON) return { text: q, kind: "broad" };
  return { text: q.length <= 6 ? q : rarestWindow(q, counts), kind: "rare" };
}

// How many bots' search text holds `trigram`, up to COMMON.
async function trigramDocs(sql: Sql, trigram: string): Promise<number> {
  const [r] = await rows<{ n: number }>(
    sql,
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM registry_bots
       WHERE search_text LIKE $1 ESCAPE '\\' LIMIT ${COMMON}) AS hits`,
    [`%${trigram.replace(/[\\%_]/g, (m) => `\\${m}`)}%`],
    { planEachTime: true },
  );
  return Number(r.n);
}

// Plan hints for callers that pass no memory of their own (bounded; cleared when full).
const fallbackMemory: PlanMemory = {
  broad: boundedMemo(),
  trigramDocs: boundedMemo(),
};

function boundedMemo<V>(): Memo<V> {
  const map = new Map<string, V>();
  return {
    get: (key) => map.get(key),
    set(key, value) {
      if (map.size >= 10_000) map.clear();
      map.set(key, value);
    },
    clear: () => map.clear(),
  };
}
