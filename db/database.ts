/** Opens the SQLite database with Signet's pragmas and applies pending migrations. */
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "./migrations/index.ts";

/** The handle every data-access module takes. */
export type Database = DatabaseSync;

/** Opens (creating if needed) the database at `path`, sets pragmas, and migrates it. */
export function openDatabase(path: string): Database {
  const db = new DatabaseSync(path);
  cacheStatements(db);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  migrate(db);
  return db;
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
