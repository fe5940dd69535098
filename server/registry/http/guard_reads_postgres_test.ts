/** The guard's PostgreSQL pools send no statement to a connection still running one. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import postgres from "postgres";
import { startPostgres } from "../../../testing/postgres.ts";
import { GUARD_POOL_SIZE, openGuardPool } from "./guard_reads_postgres.ts";

Deno.test("guard reads on PostgreSQL: a statement waits for a free connection, not behind a busy one", async () => {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  const holder = postgres(url, { max: 1, onnotice: () => {} });
  // The lock below is held for as long as the test needs, not the guard's 2 s.
  const pool = openGuardPool(url, { statement_timeout: 600_000 });
  try {
    // Every connection of the pool open and idle.
    const connections = Array.from({ length: GUARD_POOL_SIZE }, (_, i) => i);
    await Promise.all(connections.map((i) => pool.unsafe("SELECT $1::int", [i])));
    await holder.unsafe("SELECT pg_advisory_lock(42)");
    // One connection waits for the lock; each of the others runs a statement, then frees up.
    // (A postgres.js query is sent when first awaited, or by execute().)
    let blocked = "waiting";
    const waiting = pool.unsafe("SELECT pg_advisory_lock(42)").execute()
      .then(() => blocked = "locked", (e) => blocked = `failed: ${e.message}`);
    const others = connections.slice(1).map((i) => pool.unsafe("SELECT $1::int", [i]).execute());
    // Sent now, this one runs on a connection that frees up: queued behind the lock, it would
    // wait for it (20 s stands for "for ever").
    const next = pool.unsafe("SELECT 'next' AS r").then(([row]) => row.r as string);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const forever = new Promise<string>((r) =>
      timer = setTimeout(() => r("still waiting"), 20_000)
    );
    const first = await Promise.race([next, forever]);
    clearTimeout(timer);
    assertEquals([first, blocked], ["next", "waiting"]);
    await holder.unsafe("SELECT pg_advisory_unlock(42)");
    await Promise.all([waiting, ...others]);
    assertEquals(blocked, "locked");
  } finally {
    await holder.unsafe("SELECT pg_advisory_unlock_all()").catch(() => {});
    await pool.end({ timeout: 1 });
    await holder.end({ timeout: 1 });
    await pg.destroy();
  }
});
