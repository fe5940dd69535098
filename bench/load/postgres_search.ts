/**
 * Search latency on PostgreSQL at 100,000 bots (seeded like bench/: `seed-NNNNNN` ids, names and
 * descriptions from SEED_WORDS, 1–2 of 8 capabilities): per query shape, the plan PostgreSQL
 * picks and p50/p99 of `bots.search` through the store. Run: `deno run -A bench/load/postgres_search.ts`
 * (a throwaway cluster, or SERVICE_TEST_POSTGRES_URL's).
 */
import postgres from "postgres";
import { SEED_WORDS } from "./seed_names.ts";
import { startPostgres } from "../../testing/postgres.ts";
import type { BotQuery } from "../../db/registry_bots.ts";
import { searchStatement } from "../../db/postgres/registry_bots.ts";
import type { Sql } from "../../db/postgres/sql.ts";
import { openPostgresStore } from "../../db/postgres/store.ts";

const BOTS = 100_000;
const RUNS = 200;
const CAPS = ["deploy", "review", "triage", "build", "release", "chat", "monitor", "index"];

const pg = await startPostgres();
try {
  const url = await pg.createDatabase();
  const store = await openPostgresStore(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const started = performance.now();
  await sql.unsafe(
    `INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
     SELECT id, CASE WHEN i % 20 = 0 THEN 'suspended' ELSE 'active' END,
       lower(id || E'\\n' || w[1 + i % n] || ' ' || w[1 + (i / n) % n] || E'\\nA bot that helps with '
         || w[1 + (i * 7) % n] || ' and ' || w[1 + (i * 13) % n] || ' #' || i),
       '{"bot_id":"' || id || '","padding":"' || repeat('x', 600) || '"}', 1, 'x', 'x'
     FROM (SELECT i, 'seed-' || lpad(i::text, 6, '0') AS id, $1::text[] AS w,
             cardinality($1::text[]) AS n FROM generate_series(0, ${BOTS - 1}) AS i) s`,
    [SEED_WORDS as never],
  );
  await sql.unsafe(
    `INSERT INTO registry_capabilities (capability, bot_id, status, search_text)
     SELECT DISTINCT c, b.bot_id, b.status, b.search_text
     FROM generate_series(0, ${BOTS - 1}) AS i
       JOIN registry_bots b ON b.bot_id = 'seed-' || lpad(i::text, 6, '0'),
       LATERAL unnest(ARRAY[($1::text[])[1 + i % 8], ($1::text[])[1 + (i / 8) % 8]]) AS c`,
    [CAPS as never],
  );
  await sql.unsafe("VACUUM ANALYZE registry_bots");
  await sql.unsafe("VACUUM ANALYZE registry_capabilities");
  console.log(`seeded ${BOTS} bots in ${Math.round(performance.now() - started)} ms`);

  const base: BotQuery = { q: null, status: null, capability: null, after: null, limit: 50 };
  const shapes: [string, (i: number) => Partial<BotQuery>][] = [
    [
      "rare id fragment (q=seed-0NNNN, 10 hits)",
      (i) => ({ q: `seed-0${String(i % 10000).padStart(4, "0")}` }),
    ],
    ["common word (q=<word>, ~8%)", (i) => ({ q: SEED_WORDS[i % SEED_WORDS.length] })],
    ["every bot (q=seed)", () => ({ q: "seed" })],
    ["two characters (q=al)", () => ({ q: "al" })],
    ["no match (q=zzzqqq)", () => ({ q: "zzzqqq" })],
    ["capability", (i) => ({ capability: CAPS[i % 8] })],
    ["word + capability + status", (i) => ({
      q: SEED_WORDS[i % SEED_WORDS.length],
      capability: CAPS[i % 8],
      status: "active",
    })],
    ["list, keyset page 2000", () => ({ after: "seed-099950" })],
  ];
  for (const [name, make] of shapes) {
    // Once untimed: the planner's trigram counts are remembered across searches (as the server's
    // PlanMemory does), so the timed pass shows the steady state.
    for (let i = 0; i < RUNS; i++) await store.bots.search({ ...base, ...make(i) });
    const times: number[] = [];
    let hits = 0;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      hits = (await store.bots.search({ ...base, ...make(i) })).length;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const p = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))];
    const { text, params } = await searchStatement(sql as unknown as Sql, { ...base, ...make(1) });
    const plan = await sql.unsafe(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${text}`,
      params as never[],
    );
    const nodes = plan.map((r) => String(r["QUERY PLAN"])).filter((l) => /Scan|Sort|Join/.test(l))
      .map((l) => l.trim().replace(/\s+\(actual.*$/, "")).join(" / ");
    console.log(
      `${name}: p50 ${p(0.5).toFixed(2)} ms, p99 ${
        p(0.99).toFixed(2)
      } ms (${hits} hits) — ${nodes}`,
    );
  }
  await sql.end();
  await store.close();
} finally {
  await pg.destroy();
}
