/**
 * The guard's registry reads from its own read-only SQLite connection (see guard_registry_reads.ts).
 * Synchronous: a read answers in the same turn of the event loop.
 */
import { loadBotRowBytes, searchBotRecords } from "../../../db/sqlite/registry_bots.ts";
import {
  type Database,
  openReadOnlyDatabase,
  releaseDatabaseMemory,
} from "../../../db/sqlite/database.ts";
import type { BotQuery, PlanMemory } from "../../../db/registry_bots.ts";
import type { GuardReadSource } from "./guard_read_source.ts";

/** Reads from the SQLite file at `databasePath`. */
export function openSqliteReads(databasePath: string): SqliteReads {
  return new SqliteReads(openReadOnlyDatabase(databasePath));
}

/** A GuardReadSource over a read-only SQLite connection. */
export class SqliteReads implements GuardReadSource {
  #reading = false;
  /** Read transactions begun, and reads in them (for tests). */
  readonly stats = { transactions: 0, reads: 0 };

  constructor(private readonly db: Database) {}

  loadBot(botId: string) {
    this.#beginRead();
    this.stats.reads++;
    return loadBotRowBytes(this.db, botId);
  }

  search(query: BotQuery, memory: PlanMemory) {
    this.#beginRead();
    this.stats.reads++;
    return searchBotRecords(this.db, query, memory);
  }

  /**
   * Reads answered in one run of the event loop share one read transaction, ended once that run's
   * work is done (a microtask): beginning and ending one takes SQLite's shared-memory locks, about
   * half the cost of a lookup on its own. Requests that arrive later see later commits.
   */
  #beginRead(): void {
    if (this.#reading) return;
    try {
      this.db.exec("BEGIN");
    } catch {
      return; // each read then runs in a transaction of its own, as SQLite does by default
    }
    this.#reading = true;
    this.stats.transactions++;
    queueMicrotask(() => this.#endRead());
  }

  #endRead(): void {
    if (!this.#reading) return;
    this.#reading = false;
    try {
      this.db.exec("COMMIT");
    } catch {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
    }
  }

  /** Gives back the connection's page cache and mapping (see releaseDatabaseMemory). */
  releaseMemory(): void {
    this.#endRead();
    releaseDatabaseMemory(this.db);
  }

  /** Closes the database connection (ending a read transaction still open). */
  close(): void {
    this.#endRead();
    this.db.close();
  }
}
