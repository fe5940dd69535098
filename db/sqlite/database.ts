/** Opens the SQLite database with Signet's pragmas and applies pending migrations. */
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "./migrations/index.ts";
import { CommitQueue, type Outcome } from "../commit_queue.ts";

/** The handle every data-access module takes. */
export type Database = DatabaseSync;

/**
 * How much of the database file a connection maps instead of reading it through read(2): up to
 * 2 GiB (SQLite's default ceiling, SQLITE_MAX_MMAP_SIZE). At 256 MiB a 1,000,000-bot registry
 * (1.6 GB) read most pages through read(2) and GET bot ran at 0.77x of its 100,000-bot rate. Mapped
 * pages are the file's own page cache: RSS counts those a process touched, and the kernel takes
 * them back under memory pressure like any cached file page.
 */
const MMAP_BYTES = 2 * 1024 * 1024 * 1024 - 64 * 1024;
/**
 * SQLite's page cache per connection, in KiB (a negative `cache_size`). Pages read through the
 * mapping are not copied into it, but the cache also keeps each page's parsed B-tree header: at
 * SQLite's default 2 MiB, random lookups over the 100,000-bot registry parsed their index pages
 * again each time (docs/decisions/performance-and-bench.md, "SQLite page cache").
 */
const CACHE_KIB = 32 * 1024;

/** Opens (creating if needed) the database at `path`, sets pragmas, and migrates it. */
export function openDatabase(path: string): Database {
  const db = new DatabaseSync(path);
  cacheStatements(db);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  // Reads map the file instead of copying pages through read(2): a registry GET spent a third of
  // its CPU there. Read-only mapping (SQLite writes through the file).
  db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
  migrate(db);
  return db;
}

/**
 * A second, read-only connection to a database another connection opened and migrated (the
 * connection guard's thread reads stored bots through one).
 */
export function openReadOnlyDatabase(path: string): Database {
  const db = new DatabaseSync(path, { readOnly: true });
  cacheStatements(db);
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
  return db;
}

/**
 * Gives back what `db` holds for speed, for a server at rest: SQLite's page cache for the connection
 * (`shrink_memory`) and its mapping of the file, unmapped and mapped again empty (setting
 * `mmap_size` to 0 unmaps; the mapping returns lazily, and pages come back as reads touch them).
 * RSS counts every mapped page a connection touched: after the bench's loads, some hundreds of MB.
 * Does nothing inside a transaction (SQLite would defer the unmapping anyway).
 */
export function releaseDatabaseMemory(db: Database): void {
  if (db.isTransaction) return;
  db.exec("PRAGMA shrink_memory");
  db.exec("PRAGMA mmap_size = 0");
  db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
}

/** Applies every migration newer than `PRAGMA user_version`, each inside its own transaction. */
export function migrate(db: Database, upTo = MIGRATIONS.length): void {
  const current = Number(
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
  );
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this build knows (${MIGRATIONS.length}); upgrade signet`,
    );
  }
  for (let version = current + 1; version <= upTo; version++) {
    transaction(db, () => {
      db.exec(MIGRATIONS[version - 1]);
      db.exec(`PRAGMA user_version = ${version}`);
    });
  }
}

/** Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws. */
export function transaction<T>(db: Database, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/**
 * Group commit for concurrent writers (the queue: db/commit_queue.ts): every write submitted
 * before the batch runs shares one `BEGIN IMMEDIATE … COMMIT`; each promise settles only after the
 * COMMIT, so a write is acknowledged once committed, and each write sees the ones before it, as if
 * run one by one. A write that throws changes nothing: the batch is rolled back and run again with
 * a savepoint around each write, so only the failing one is undone. (Savepoints are not used
 * otherwise: the full-text index writes its pending rows out at every savepoint.) Writes may be
 * async; the batch holds the connection until its COMMIT, and one batch runs at a time.
 */
export class WriteBatcher {
  readonly #queue: CommitQueue<() => unknown>;
  /**
   * `onCommit` is called after each batch's COMMIT that changed rows (a batch of deletes that found
   * nothing wrote nothing to wake a checkpointer for); `maxWaitMs` bounds a batch's wait for
   * announced writes (CommitQueue's default unless given).
   */
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void = () => {},
    maxWaitMs?: number,
  ) {
    this.#queue = new CommitQueue(
      async (batch) => (await this.#attempt(batch, false)) ?? (await this.#attempt(batch, true))!,
      Infinity,
      maxWaitMs,
    );
  }

  /** Runs `write` (no transaction of its own) in the next batch. */
  run<T>(write: () => T | Promise<T>): Promise<T> {
    return this.#queue.submit<T>(write);
  }

  /**
   * Announces a write that is being prepared and will probably be submitted soon; call the
   * returned function once, after submitting it with `run` or giving up.
   */
  expect(): () => void {
    return this.#queue.expect();
  }

  /** Resolves once every write submitted so far has settled. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  // Runs the batch in one transaction. Without savepoints, the first failing write rolls back
  // everything and returns null; with them, a failing write is undone alone.
  async #attempt(batch: (() => unknown)[], savepoints: boolean): Promise<Outcome[] | null> {
    const outcomes: Outcome[] = [];
    this.db.exec("BEGIN IMMEDIATE");
    const changesBefore = totalChanges(this.db);
    try {
      for (const write of batch) {
        if (!savepoints) {
          outcomes.push({ ok: true, value: await write() });
          continue;
        }
        this.db.prepare("SAVEPOINT batched_write").run();
        try {
          outcomes.push({ ok: true, value: await write() });
        } catch (err) {
          this.db.prepare("ROLLBACK TO batched_write").run();
          outcomes.push({ ok: false, value: err });
        }
        this.db.prepare("RELEASE batched_write").run();
      }
      this.db.exec("COMMIT");
      if (totalChanges(this.db) !== changesBefore) this.onCommit();
      return outcomes;
    } catch (err) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      if (!savepoints && outcomes.length < batch.length) return null;
      throw err;
    }
  }
}

/** Rows inserted, updated or deleted on `db`'s connection since it opened (SQLite's count). */
function totalChanges(db: Database): number {
  return Number((db.prepare("SELECT total_changes() AS n").get() as { n: number | bigint }).n);
}

/**
 * Makes `db.prepare(sql)` return one cached statement per SQL text. Data access prepares its SQL
 * on every call; compiling it again each time cost more than the query itself on hot read paths.
 * Statements here are only run to completion (`get`/`all`/`run`), never iterated, so sharing one is
 * safe. The cache is bounded: SQL built with a varying number of placeholders could otherwise grow
 * it without end.
 */
function cacheStatements(db: DatabaseSync): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, ReturnType<typeof prepare>>();
  db.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      if (cache.size >= 500) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  };
}
