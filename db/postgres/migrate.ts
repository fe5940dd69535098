/**
 * Applies the pending PostgreSQL migrations at start-up. Each migration runs in its own
 * transaction that first takes a transaction-scoped advisory lock, so instances starting at once
 * against one database apply each migration exactly once (the later ones wait, then find it
 * done). The version lives in the one-row `schema_version` table; a database newer than this
 * build refuses to start.
 */
import type postgres from "postgres";
import { MIGRATIONS } from "./migrations/index.ts";

/** The advisory lock key migrations hold ("SignetMg" as a 64-bit integer). */
const MIGRATION_LOCK = "6010448901548821863";

/** Migrates the database `sql` points at up to `upTo` (all by default); returns the version. */
export async function migrate(
  sql: postgres.Sql<Record<string, never>>,
  upTo = MIGRATIONS.length,
): Promise<number> {
  for (;;) {
    const version = await sql.begin(async (tx) => {
      // A migration (or waiting for another instance's) may outlast the pool's statement and
      // idle-in-transaction limits.
      await tx.unsafe("SET LOCAL statement_timeout = 0");
      await tx.unsafe("SET LOCAL idle_in_transaction_session_timeout = 0");
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await tx.unsafe(
        `CREATE TABLE IF NOT EXISTS schema_version (
           one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), version INTEGER NOT NULL)`,
      );
      const [row] = await tx.unsafe<{ version: number }[]>("SELECT version FROM schema_version");
      const current = row ? Number(row.version) : 0;
      if (current > MIGRATIONS.length) {
        throw new Error(
          `database schema version ${current} is newer than this build knows (${MIGRATIONS.length}); upgrade signet`,
        );
      }
      if (current >= upTo) return current;
      const next = current + 1;
      // The one value a migration takes from outside: a fresh random key (migration 1 stores it).
      await tx.unsafe("SELECT set_config('signet.nonce_key', $1, true)", [randomHex(32)]);
      await tx.unsafe(MIGRATIONS[next - 1]);
      await tx.unsafe(
        `INSERT INTO schema_version (one, version) VALUES (TRUE, $1)
         ON CONFLICT (one) DO UPDATE SET version = excluded.version`,
        [next],
      );
      return -next;
    });
    if (version >= 0) return version;
  }
}

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
