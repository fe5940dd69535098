/**
 * Search sorts on both engines (issue 27): the migration that adds them gives the bots stored
 * before it their name key and every later write keeps it, and at 100,000 bots every sort's page
 * walks an index or sorts the few rows a selective filter's index found, never a scan of the
 * table (EXPLAIN of the statements the stores run).
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { startPostgres } from "../testing/postgres.ts";
import { migrate as migrateSqlite, openDatabase } from "./sqlite/database.ts";
import { MIGRATIONS as SQLITE_MIGRATIONS } from "./sqlite/migrations/index.ts";
import { sortedSearchStatement } from "./sqlite/registry_bots.ts";
import { migrate as migratePostgres } from "./postgres/migrate.ts";
import { searchStatement } from "./postgres/registry_bots.ts";
import { planMemory } from "../server/registry/search.ts";
import type { BotQuery, BotSort } from "./registry_bots.ts";

/** Names before the migration, and the name key each must get. */
const NAMED: [id: string, record: Record<string, unknown>, key: string][] = [
  ["zed", { bot_id: "zed", name: "Zed Bot" }, "zed bot"],
  ["empty", { bot_id: "empty", name: "" }, "empty"],
  ["nameless", { bot_id: "nameless" }, "nameless"],
  ["accents", { bot_id: "accents", name: "ÉCLAIR Ünï ÀB" }, "Éclair Ünï Àb"],
  ["control", { bot_id: "control", name: "\u0001Tab\tX" }, "\u0001tab\tx"],
];

type Sql = postgres.Sql<Record<string, never>>;

/** Runs `fn` with one connection to a fresh database of a throwaway cluster, dropped after. */
async function withPostgres(fn: (sql: Sql) => Promise<void>): Promise<void> {
  const pg = await startPostgres();
  try {
    const sql = postgres(await pg.createDatabase(), {
      max: 1,
      onnotice: () => {},
    }) as unknown as Sql;
    try {
      await fn(sql);
    } finally {
      await sql.end();
    }
  } finally {
    await pg.destroy();
  }
}

const insertBot =
  "INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at) VALUES ";

Deno.test("search sorts on SQLite: migration 7 keys the bots stored before it; writes keep it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-sorts-" });
  try {
    const db = new DatabaseSync(`${dir}/old.db`);
    migrateSqlite(db, SQLITE_MIGRATIONS.length - 1);
    const insert = db.prepare(`${insertBot}(?, 'active', '', ?, 1, 'c', 'u')`);
    for (const [id, record] of NAMED) insert.run(id, JSON.stringify(record));
    migrateSqlite(db);
    const keys = () =>
      Object.fromEntries(
        (db.prepare("SELECT bot_id, name_key FROM registry_bots").all() as {
          bot_id: string;
          name_key: string;
        }[]).map((r) => [r.bot_id, r.name_key]),
      );
    assertEquals(keys(), Object.fromEntries(NAMED.map(([id, , key]) => [id, key])));
    db.prepare("UPDATE registry_bots SET record = ? WHERE bot_id = 'zed'").run(
      JSON.stringify({ bot_id: "zed", name: "Able" }),
    );
    assertEquals(keys().zed, "able");
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("search sorts on PostgreSQL: migration 4 keys the bots stored before it; writes keep it", async () => {
  await withPostgres(async (sql) => {
    await migratePostgres(sql, 3); // the schema before migration 4
    for (const [id, record] of NAMED) {
      await sql.unsafe(`${insertBot}($1, 'active', '', $2, 1, 'c', 'u')`, [
        id,
        JSON.stringify(record),
      ]);
    }
    await migratePostgres(sql);
    const keys = async () =>
      Object.fromEntries(
        (await sql.unsafe<{ bot_id: string; name_key: string }[]>(
          "SELECT bot_id, name_key FROM registry_bots",
        )).map((r) => [r.bot_id, r.name_key]),
      );
    assertEquals(await keys(), Object.fromEntries(NAMED.map(([id, , key]) => [id, key])));
    await sql.unsafe("UPDATE registry_bots SET record = $1 WHERE bot_id = 'zed'", [
      JSON.stringify({ bot_id: "zed", name: "Able" }),
    ]);
    assertEquals((await keys()).zed, "able");
  });
});

const BOTS = 100_000;

/**
 * The searches whose plans are checked: each sort alone, after a cursor, with a broad and a rare
 * status (1 bot in 1,000 revoked), a common and a rare capability (1 in 2,000), a broad, a rare and
 * a short `q`. `walk`: the plan walks the sort's index; otherwise it sorts what another index found.
 */
function searches(): { name: string; query: BotQuery; walk: boolean }[] {
  const out: { name: string; query: BotQuery; walk: boolean }[] = [];
  const base: BotQuery = { q: null, status: null, capability: null, after: null, limit: 21 };
  for (const sort of ["name", "-name", "created", "-created", "updated", "-updated"] as const) {
    // Keys from the middle of each order (creation times run for 60 days from January 1st,
    // changes for 60 days from March 1st).
    const afterKey = sort.endsWith("name")
      ? "seed bot 050000"
      : sort.endsWith("created")
      ? "2026-01-31T00:00:00.000Z"
      : "2026-03-31T00:00:00.000Z";
    const cases: [string, Partial<BotQuery>, boolean][] = [
      ["alone", {}, true],
      ["after a cursor", { after: "bot-050000", afterKey }, true],
      ["active", { status: "active" }, true],
      ["revoked", { status: "revoked" }, false],
      ["common capability", { capability: "deploy" }, true],
      ["rare capability", { capability: "rare" }, false],
      ["broad q", { q: "seed" }, true],
      ["rare q", { q: "bot-01234" }, false],
      ["short q", { q: "7" }, true],
    ];
    for (const [name, extra, walk] of cases) {
      out.push({ name: `${sort} ${name}`, query: { ...base, sort, ...extra }, walk });
    }
  }
  return out;
}

/** The index each sort walks. */
function sortIndex(sort: BotSort | undefined): string {
  return `registry_bots_${sort?.replace(/^-/, "")}`;
}

Deno.test("search sorts on SQLite at 100,000 bots: an index walk or a few rows sorted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-sorts-" });
  try {
    const db = openDatabase(`${dir}/signet.db`);
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BOTS})
      ${insertBot.replace(" VALUES ", " ")}
      SELECT 'bot-' || printf('%06d', i), CASE WHEN i % 1000 = 0 THEN 'revoked' ELSE 'active' END,
        'bot-' || printf('%06d', i) || char(10) || 'seed bot ' || i || char(10) || 'task ' || (i % 97),
        json_object('bot_id', 'bot-' || printf('%06d', i),
          'name', CASE WHEN i % 7 = 0 THEN '' ELSE 'Seed Bot ' || printf('%06d', i * 7919 % ${BOTS}) END),
        1, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (i * 37 % 86400) || ' minutes'),
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-03-01', '+' || (i * 53 % 86400) || ' minutes')
      FROM n;
      INSERT INTO registry_capabilities (capability, bot_id)
        SELECT CASE WHEN rid % 2000 = 0 THEN 'rare' ELSE 'deploy' END, bot_id FROM registry_bots;
    `);
    const memory = planMemory();
    for (const { name, query, walk } of searches()) {
      const statement = sortedSearchStatement(db, query, query.sort as never, "b.record", memory);
      assert(statement !== null, name);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(
        ...statement.params,
      ) as { detail: string }[]).map((r) => r.detail);
      const text = plan.join(" | ");
      // The table is never read whole: its rows come from the sort's index or by rowid.
      assert(!plan.some((d) => /^SCAN b$/.test(d)), `${name}: ${text}`);
      if (walk) {
        assert(
          plan.some((d) => d.includes(`USING INDEX ${sortIndex(query.sort)}`)),
          `${name}: ${text}`,
        );
        assert(!text.includes("TEMP B-TREE"), `${name}: ${text}`);
      } else {
        assert(text.includes("USING INTEGER PRIMARY KEY (rowid=?)"), `${name}: ${text}`);
      }
      const rows = db.prepare(statement.sql).all(...statement.params);
      assert(rows.length > 0, name);
    }
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("search sorts on PostgreSQL at 100,000 bots: an index walk or a few rows sorted", async () => {
  await withPostgres(async (sql) => {
    await migratePostgres(sql);
    await sql.unsafe(`
        ${insertBot.replace(" VALUES ", " ")}
        SELECT 'bot-' || lpad(i::text, 6, '0'), CASE WHEN i % 1000 = 0 THEN 'revoked' ELSE 'active' END,
          'bot-' || lpad(i::text, 6, '0') || E'\\nseed bot ' || i || E'\\ntask ' || (i % 97),
          json_build_object('bot_id', 'bot-' || lpad(i::text, 6, '0'),
            'name', CASE WHEN i % 7 = 0 THEN '' ELSE 'Seed Bot ' || lpad((i * 7919 % ${BOTS})::text, 6, '0') END)::text,
          1, to_char(timestamp '2026-01-01' + make_interval(mins => i * 37 % 86400), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(timestamp '2026-03-01' + make_interval(mins => i * 53 % 86400), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        FROM generate_series(1, ${BOTS}) AS i`);
    await sql.unsafe(`
        INSERT INTO registry_capabilities (capability, bot_id, status, search_text)
        SELECT CASE WHEN rid % 2000 = 0 THEN 'rare' ELSE 'deploy' END, bot_id, status, search_text
        FROM registry_bots`);
    await sql.unsafe("ANALYZE");
    const memory = planMemory();
    for (const { name, query, walk } of searches()) {
      const { text, params } = await searchStatement(sql as never, query, memory);
      const plan = (await sql.unsafe<{ "QUERY PLAN": string }[]>(
        `EXPLAIN ${text}`,
        params as never[],
      )).map((r) => r["QUERY PLAN"]).join("\n");
      assert(!plan.includes("Seq Scan"), `${name}:\n${plan}`);
      if (walk) {
        assert(plan.includes(`Index Scan`), `${name}:\n${plan}`);
        assert(plan.includes(sortIndex(query.sort)), `${name}:\n${plan}`);
        assert(!/\bSort\b/.test(plan), `${name}:\n${plan}`);
      } else {
        // A few rows found by another index (status, capability, trigrams), then sorted.
        assert(!plan.includes(sortIndex(query.sort)), `${name}:\n${plan}`);
      }
      const rows = await sql.unsafe(text, params as never[]);
      assert(rows.length > 0, name);
    }
  });
});
