/** Opens the configured engine: PostgreSQL for a `postgres://` URL, else the embedded SQLite file. */
import type { Store } from "./store.ts";

/** Where the data lives. */
export interface StoreLocation {
  /** `postgres://…` (or `postgresql://…`), or null for the embedded SQLite file. */
  databaseUrl: string | null;
  /** The SQLite file used when `databaseUrl` is null. */
  sqlitePath: string;
  /** Hears why a background helper of the engine stopped (SQLite's WAL checkpointer). */
  onBackgroundFailure?: (message: string) => void;
  /** Hears when a PostgreSQL server stops answering (`false`, why) and answers again (`true`). */
  onAvailability?: (available: boolean, error?: string) => void;
}

/** Opens, and migrates, the store at `where`. */
export async function openStore(where: StoreLocation): Promise<Store> {
  if (where.databaseUrl !== null) {
    const { openPostgresStore } = await import("./postgres/store.ts");
    return await openPostgresStore(where.databaseUrl, { onAvailability: where.onAvailability });
  }
  const { openSqliteStore } = await import("./sqlite/store.ts");
  return await openSqliteStore(where.sqlitePath, {
    onCheckpointFailure: where.onBackgroundFailure,
  });
}
