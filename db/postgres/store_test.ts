/**
 * PostgreSQL-only behaviour of the store: migrations (once under a race, refusing a newer
 * database), start-up failures that say what is wrong, outages as DomainError("unavailable") and
 * recovery, nested transactions, and the search index being used at 100,000 bots.
 */
import postgres from "postgres";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "../../tests/helpers/assert.ts";
import { DomainError } from "../../protocol/errors.ts";
import { PASSWORD_ROLE, startPostgres, type TestPostgres } from "../../testing/postgres.ts";
import { MIGRATIONS } from "./migrations/index.ts";
import { migrate } from "./migrate.ts";
import { openPostgresStore } from "./store.ts";
import { existingTables } from "./backup.ts";
import { pgBots, searchStatement } from "./registry_bots.ts";
import type { Store } from "../store.ts";

// A shared cluster (SERVICE_TEST_POSTGRES_URL) cannot be stopped, frozen or given a password role.
const shared = Deno.env.get("SERVICE_TEST_POSTGRES_URL") !== undefined;

async function withCluster(fn: (pg: TestPostgres) => Promise<void>): Promise<void> {
  const pg = await startPostgres();
  try {
    await fn(pg);
  } finally {
    await pg.destroy();
  }
}

/** Runs each named call: each must fail as unavailable within `ms`; their errors. */
async function failsUnavailable(
  checks: [string, () => Promise<unknown>][],
  ms: number,
): Promise<Error[]> {
  const errors: Error[] = [];
  for (const [name, call] of checks) {
    const started = Date.now();
    const err = await assertRejects(call, DomainError);
    assertEquals((err as DomainError).kind, "unavailable", `${name}: ${err.message}`);
    assert(Date.now() - started < ms, `${name} took ${Date.now() - started} ms`);
    errors.push(err);
  }
  return errors;
}

/** User alice read back once the database answers again (10 s at most), or undefined. */
async function aliceAgain(store: Store) {
  let user;
  for (let i = 0; i < 50 && !user; i++) {
    user = await store.users.findByName("alice").catch(() => undefined);
    if (!user) await new Promise((r) => setTimeout(r, 200));
  }
  return user;
}

async function query<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return Array.from(await sql.unsafe(text, params as never[])) as T[];
  } finally {
    await sql.end();
  }
}

Deno.test("postgres: migrations run once when instances start at once; a newer database is refused", async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    const keys = await Promise.all(stores.map((s) => s.nonces.keyHex()));
    assertEquals(new Set(keys).size, 1);
    for (const s of stores) await s.close();
    const [v] = await query<{ version: number }>(url, "SELECT version FROM schema_version");
    assertEquals(v.version, MIGRATIONS.length);
    const meta = await query(url, "SELECT * FROM registry_meta");
    assertEquals(meta.length, 1);
    // Opening again changes nothing.
    const again = await openPostgresStore(url);
    assertEquals(await again.nonces.keyHex(), keys[0]);
    await again.close();

    await query(url, "UPDATE schema_version SET version = 99");
    const err = await assertRejects(() => openPostgresStore(url));
    assert(
      err.message.includes(
        `database schema version 99 is newer than this build knows (${MIGRATIONS.length}); upgrade signet`,
      ),
      err.message,
    );
  });
});

Deno.test({
  name: "postgres: start-up failures name host, port, database and cause, never the password",
  ignore: shared,
}, async () => {
  await withCluster(async (pg) => {
    const base = new URL(pg.url());
    const hostPort = `127.0.0.1:${base.port}`;
    const secret = "s3cret-Pa55";
    const fails = async (url: string, expected: string[], opts = {}) => {
      const started = Date.now();
      const err = await assertRejects(() => openPostgresStore(url, opts));
      const ms = Date.now() - started;
      assert(ms < 10_000, `took ${ms} ms`);
      for (const e of expected) assert(err.message.includes(e), `${err.message} lacks ${e}`);
      assert(!err.message.includes(secret), err.message);
      assert(!String((err as { cause?: Error }).cause?.message).includes(secret));
      return err.message;
    };
    // A free port nothing listens on.
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadPort = (closed.addr as Deno.NetAddr).port;
    closed.close();
    await fails(`postgres://signet:${secret}@127.0.0.1:${deadPort}/db1`, [
      `127.0.0.1:${deadPort}`,
      '"db1"',
      "connection refused: is PostgreSQL running and listening on",
    ]);
    await fails(`postgres://signet:${secret}@${hostPort}/nosuchdb`, [
      hostPort,
      'database "nosuchdb" does not exist',
    ]);
    await fails(`postgres://nobody:${secret}@${hostPort}/postgres`, [
      hostPort,
      'role "nobody" does not exist',
    ]);
    await query(pg.url(), `CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD 'right-one'`);
    await fails(`postgres://${PASSWORD_ROLE}:${secret}@${hostPort}/postgres`, [
      hostPort,
      `password authentication failed for user "${PASSWORD_ROLE}"`,
    ]);
    // A listener that accepts and never answers: the connect timeout.
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    (async () => {
      for await (const c of silent) held.push(c);
    })().catch(() => {});
    const port = (silent.addr as Deno.NetAddr).port;
    await fails(`postgres://signet:${secret}@127.0.0.1:${port}/db`, ["timed out after 2 s"], {
      connectTimeoutMs: 2000,
    });
    silent.close();
    for (const c of held) c.close();
  });
});

for (const over of ["TCP", "a Unix socket"]) {
  Deno.test({
    name:
      `postgres: an outage over ${over} fails calls as unavailable, quickly, said once each way`,
    ignore: shared,
  }, () => outageAndRecovery(over === "TCP"));
}

async function outageAndRecovery(tcp: boolean): Promise<void> {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const changes: boolean[] = [];
    const store = await openPostgresStore(tcp ? url : pg.overSocket(url), {
      onAvailability: (available) => changes.push(available),
    });
    try {
      await store.users.insert("alice", "k1");
      await store.ping();
      await pg.stop();
      const checks: [string, () => Promise<unknown>][] = [
        ["read", () => store.users.findByName("alice")],
        ["ping", () => store.ping()],
        ["transaction", () => store.transaction((tx) => tx.nonces.markUsed("n", 1))],
      ];
      for (const err of await failsUnavailable(checks, 15_000)) {
        assertEquals(err.message, "the database is unavailable; try again shortly");
      }
      await pg.start();
      assertEquals((await aliceAgain(store))?.username, "alice");
      await store.ping();
      assertEquals(await store.transaction((tx) => tx.nonces.markUsed("n", 1)), true);
      // Calls made one after another: one change down, one back up.
      assertEquals(changes, [false, true]);
    } finally {
      await store.close();
    }
  });
}

Deno.test({
  name: "postgres: a statement cut off by its timeout is unavailable, not an outage",
  ignore: shared,
}, async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const changes: boolean[] = [];
    const store = await openPostgresStore(url, {
      queryTimeoutMs: 1000,
      onAvailability: (available) => changes.push(available),
    });
    const other = postgres(url, { max: 1, onnotice: () => {} });
    try {
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const held = other.begin(async (tx) => {
        await tx.unsafe("LOCK TABLE users IN ACCESS EXCLUSIVE MODE");
        locked();
        await new Promise((r) => setTimeout(r, 2500));
      });
      await isLocked;
      const err = await store.users.findByName("alice").then(() => null, (e) => e);
      assert(err instanceof DomainError && err.kind === "unavailable", String(err));
      await store.ping(); // the server answers everything else meanwhile
      await held;
      assertEquals(changes, [], "no outage was said");
    } finally {
      await store.close();
      await other.end();
    }
  });
});

Deno.test({
  name: "postgres: a server that stops answering fails calls as unavailable, not a hang",
  ignore: shared,
}, async () => {
  await withCluster(async (pg) => {
    const store = await openPostgresStore(await pg.createDatabase(), { queryTimeoutMs: 2000 });
    try {
      await store.users.insert("alice", "k1");
      await pg.freeze();
      const checks: [string, () => Promise<unknown>][] = [
        ["read", () => store.users.findByName("alice")],
        ["transaction", () => store.transaction((tx) => tx.users.insert("bob", "k2"))],
      ];
      await failsUnavailable(checks, 20_000);
      await pg.thaw();
      assertEquals((await aliceAgain(store))?.username, "alice");
      // The transaction given up on was rolled back, not committed behind the caller's back.
      await new Promise((r) => setTimeout(r, 1000));
      assertEquals(await store.users.findByName("bob"), undefined);
    } finally {
      await pg.thaw();
      await store.close();
    }
  });
});

Deno.test("postgres: a transaction that outlives the deadline is rolled back and unavailable", async () => {
  await withCluster(async (pg) => {
    const store = await openPostgresStore(await pg.createDatabase(), { queryTimeoutMs: 1000 });
    try {
      const err = await assertRejects(
        () =>
          store.transaction(async (tx) => {
            await tx.users.insert("slow", "k-slow");
            await new Promise((r) => setTimeout(r, 7000));
            await tx.users.insert("slow2", "k-slow2");
          }),
        DomainError,
      );
      assertEquals((err as DomainError).kind, "unavailable", err.message);
      assertEquals(await store.users.findByName("slow"), undefined);
      assertEquals((await store.users.insert("fast", "k-fast")).username, "fast");
    } finally {
      await store.close();
    }
  });
});

Deno.test("postgres: a transaction inside a transaction, and store calls inside one, use it", async () => {
  await withCluster(async (pg) => {
    const store = await openPostgresStore(await pg.createDatabase(), { poolSize: 2 });
    try {
      await assertRejects(() =>
        store.transaction(async (tx) => {
          await tx.log.lock();
          await tx.users.insert("a", "ka");
          // Would deadlock on the log lock (and the pool) if it took another connection.
          await store.transaction(async (inner) => {
            await inner.log.lock();
            await inner.users.insert("b", "kb");
          });
          assertEquals((await store.users.findByName("b"))?.username, "b");
          throw new Error("undo");
        })
      );
      assertEquals(await store.users.findByName("a"), undefined);
      assertEquals(await store.users.findByName("b"), undefined);
    } finally {
      await store.close();
    }
  });
});

Deno.test("postgres: search at 100,000 bots uses the trigram index for a selective term, the capability's for a broad term with one", async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const store = await openPostgresStore(url);
    try {
      await query(
        url,
        `INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
         SELECT 'bot-' || lpad(i::text, 6, '0'), 'active',
           'bot-' || lpad(i::text, 6, '0') || E'\\nseed bot ' || i || E'\\nhelps with task ' || (i % 97),
           '{}', 1, 'x', 'x'
         FROM generate_series(1, 100000) AS i`,
      );
      await query(
        url,
        `INSERT INTO registry_capabilities (capability, bot_id, status, search_text)
         SELECT CASE WHEN rid % 4 = 0 THEN 'deploy' ELSE 'chat' END, bot_id, status, search_text
         FROM registry_bots`,
      );
      await query(url, "ANALYZE registry_bots");
      await query(url, "ANALYZE registry_capabilities");
      const plan = (await query<{ "QUERY PLAN": string }>(
        url,
        `EXPLAIN SELECT b.bot_id, b.record FROM registry_bots b
         WHERE b.search_text LIKE $1 ESCAPE '\\' ORDER BY b.bot_id LIMIT 50`,
        ["%bot-012345%"],
      )).map((r) => r["QUERY PLAN"]).join("\n");
      assert(plan.includes("registry_bots_search"), plan);
      assert(!plan.includes("Seq Scan"), plan);
      const q = { status: null, capability: null, after: null, limit: 50 };
      assertEquals((await store.bots.search({ ...q, q: "BOT-012345" })).map((h) => h.botId), [
        "bot-012345",
      ]);
      const broad = await store.bots.search({ ...q, q: "seed" });
      assertEquals(broad.length, 50);
      assertEquals(broad[0].botId, "bot-000001");
      // The store's own statement for rare terms: the index finds the matches, whatever
      // PostgreSQL guesses their number to be; bot_id is never walked row by row.
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        for (const term of ["bot-01234", "bot-05021", "bot-08606", "012345"]) {
          const { text, params } = await searchStatement(sql, { ...q, q: term });
          const rarePlan = (await sql.unsafe(`EXPLAIN ${text}`, params as never[]))
            .map((r) => r["QUERY PLAN"]).join("\n");
          assert(rarePlan.includes("registry_bots_search"), rarePlan);
          assert(!rarePlan.includes("registry_bots_bot_id_key"), rarePlan);
        }
        // A broad term with a capability: the capability's rows are walked in bot_id order with
        // the term checked on each (the row carries the search text); no bot is read that lacks
        // the capability, and nothing is sorted.
        const withCapability = { ...q, q: "task 1", capability: "deploy", status: "active" };
        const { text, params } = await searchStatement(sql, withCapability, {
          broad: { get: () => undefined, set() {}, clear() {} },
          trigramDocs: { get: () => 100_000, set() {}, clear() {} },
        });
        const walkPlan = (await sql.unsafe(`EXPLAIN ${text}`, params as never[]))
          .map((r) => r["QUERY PLAN"]).join("\n");
        assert(walkPlan.includes("using registry_capabilities_pkey"), walkPlan);
        assert(!walkPlan.includes("Seq Scan"), walkPlan);
        assert(!/\bSort\b/.test(walkPlan), walkPlan);
        const expected = (await query<{ bot_id: string }>(
          url,
          `SELECT bot_id FROM registry_bots WHERE rid % 4 = 0 AND search_text LIKE '%task 1%'
           ORDER BY bot_id LIMIT 50`,
        )).map((r) => r.bot_id);
        assertEquals(expected.length, 50);
        assertEquals(
          (await store.bots.search(withCapability)).map((h) => h.botId),
          expected,
        );
      } finally {
        await sql.end();
      }
    } finally {
      await store.close();
    }
  });
});

Deno.test("postgres: a libpq-style ?host=/dir URL connects over the Unix-domain socket", async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const [{ dir }] = await query<{ dir: string }>(
      url,
      "SELECT current_setting('unix_socket_directories') AS dir",
    );
    const store = await openPostgresStore(`${url}?host=${encodeURIComponent(dir)}`);
    try {
      await store.users.insert("over-socket", "k-socket");
      const seen = await query<{ addr: string | null }>(
        url,
        "SELECT client_addr::text AS addr FROM pg_stat_activity WHERE application_name = 'signet'",
      );
      assert(seen.length > 0 && seen.every((r) => r.addr === null), JSON.stringify(seen));
      assertEquals(
        (await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM users"))[0].n,
        1,
      );
    } finally {
      await store.close();
    }
  });
});

Deno.test("postgres: restore's check reaches a socket URL, and a missing socket is named", async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    assertEquals(await existingTables(pg.overSocket(url)), []);
    const missing = `${url}?host=${encodeURIComponent("/nonexistent-signet-dir")}`;
    const why = await existingTables(missing).then(() => "", (e: Error) => e.message);
    assertStringIncludes(why, "at socket /nonexistent-signet-dir/.s.PGSQL.");
    assertStringIncludes(why, "no such socket");
  });
});

Deno.test("postgres: searches planned for their values run as named statements on the custom-plan pool", async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const store = await openPostgresStore(url);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const customPlans = postgres(url, {
      max: 1,
      onnotice: () => {},
      connection: { plan_cache_mode: "force_custom_plan" },
    });
    try {
      await query(
        url,
        `INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
         SELECT 'bot-' || lpad(i::text, 4, '0'), 'active', 'bot-' || lpad(i::text, 4, '0') || E'\\nhelper', '{}', 1, 'x', 'x'
         FROM generate_series(1, 3000) AS i`,
      );
      const bots = pgBots(sql as never, customPlans as never);
      const q = { status: null, capability: null, after: null, limit: 5 };
      // Every trigram of "helper" is held by 3,000 bots: a broad term, planned for its value.
      for (let i = 0; i < 12; i++) {
        const after = `bot-${String(i * 100).padStart(4, "0")}`;
        const hits = await bots.search({ ...q, q: "helper", after });
        assertEquals(hits.length, 5, JSON.stringify(hits));
      }
      const plans = await customPlans.unsafe<{ generic_plans: number; custom_plans: number }[]>(
        `SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements
         WHERE statement LIKE '%registry_bots%'`,
      );
      assertEquals(plans.length, 1);
      assertEquals(plans[0].generic_plans, 0);
      assertEquals(plans[0].custom_plans, 12);
      // Without the pool, the same search runs unnamed: nothing is prepared on `sql`.
      const alone = pgBots(sql as never);
      assertEquals((await alone.search({ ...q, q: "helper" })).length, 5);
      const named = await sql.unsafe(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%search_text%'",
      );
      assertEquals(named[0].n, 0);
    } finally {
      await sql.end();
      await customPlans.end();
      await store.close();
    }
  });
});

Deno.test("postgres: migration 5 gives the capability rows stored before it their bot's status and search text", async () => {
  await withCluster(async (pg) => {
    const url = await pg.createDatabase();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(sql as never, 4);
      await sql.unsafe(
        `INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
         VALUES ('b1', 'active', 'b1 first helper', '{}', 1, 'x', 'x'),
                ('b2', 'revoked', 'b2 second helper', '{}', 1, 'x', 'x')`,
      );
      await sql.unsafe(
        `INSERT INTO registry_capabilities (capability, bot_id)
         VALUES ('chat', 'b1'), ('code', 'b1'), ('chat', 'b2')`,
      );
      await migrate(sql as never);
      assertEquals(
        Array.from(
          await sql.unsafe<Record<string, string>[]>(
            "SELECT capability, bot_id, status, search_text FROM registry_capabilities ORDER BY 1, 2",
          ),
          (r) => ({ ...r }),
        ),
        [
          { capability: "chat", bot_id: "b1", status: "active", search_text: "b1 first helper" },
          { capability: "chat", bot_id: "b2", status: "revoked", search_text: "b2 second helper" },
          { capability: "code", bot_id: "b1", status: "active", search_text: "b1 first helper" },
        ],
      );
      // Searched through the capability's rows (the term taken as broad): the same bots as before.
      const bots = pgBots(sql as never);
      const broad = {
        broad: { get: () => true as const, set() {}, clear() {} },
        trigramDocs: { get: () => 100_000, set() {}, clear() {} },
      };
      const q = { q: "helper", status: null, capability: "chat", after: null, limit: 10 };
      assertEquals((await bots.search(q, broad)).map((h) => h.botId), ["b1", "b2"]);
      assertEquals(
        (await bots.search({ ...q, status: "active" }, broad)).map((h) => h.botId),
        ["b1"],
      );
    } finally {
      await sql.end();
    }
  });
});
