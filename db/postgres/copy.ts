/**
 * Copies the embedded SQLite data set into an empty PostgreSQL database (`signet db copy`): the
 * SQLite file is read on a read-only connection in one read transaction (a consistent snapshot);
 * the target is migrated by `openPostgresStore`, then filled table by table in ONE PostgreSQL
 * transaction with batched multi-row INSERTs that keep every id, its identity counters moved
 * past the copied ids, and the row counts checked against the source before it commits. Any
 * failure (or a killed process) rolls it all back: the target stays empty.
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { MIGRATIONS as SQLITE_MIGRATIONS } from "../sqlite/migrations/index.ts";
import type { Resources } from "../store.ts";
import { INT8_AS_NUMBER, openPostgresStore, resourcesOver, socketOptions } from "./store.ts";

/** One table to copy: its columns, in the order both engines share. */
interface TableSpec {
  name: string;
  /** Columns written in PostgreSQL. */
  columns: string[];
  /** The SELECT list read from SQLite (same order as `columns`); default `columns`. */
  select?: string;
  /** The SQLite ORDER BY (insertion order, so identity values come out as they were). */
  orderBy: string;
  /** The identity column whose counter is moved past the copied ids. */
  identity?: string;
  /** The identity is GENERATED ALWAYS: the INSERT must say OVERRIDING SYSTEM VALUE. */
  always?: boolean;
}

/** A table to copy: its `columns` space-separated, read in `orderBy` order. */
function table(name: string, columns: string, orderBy: string, identity?: string): TableSpec {
  return { name, columns: columns.split(" "), orderBy, identity };
}

/** A table whose first column is its identity, read in that column's order. */
function identified(name: string, columns: string): TableSpec {
  const first = columns.split(" ")[0];
  return table(name, columns, first, first);
}

/** Every table, parents before children (the foreign keys hold at every step). */
const TABLES: readonly TableSpec[] = [
  identified("users", "id username public_key created_at"),
  {
    ...table(
      "invites",
      "code created_by used_by created_at used_at expires_at seq",
      "rowid",
      "seq",
    ),
    // SQLite's rowid is the insertion order PostgreSQL keeps in `seq`.
    select: "code, created_by, used_by, created_at, used_at, expires_at, rowid",
    always: true,
  },
  identified("tokens", "id token_hash user_id created_at expires_at last_used_at"),
  identified("challenges", "id username nonce created_at created_ms"),
  identified("repos", "id owner_id name created_at pushed_at size_bytes"),
  identified("registry_bots", "rid bot_id status search_text record version created_at updated_at"),
  table("registry_keys", "bot_id key_id public_key status", "bot_id, key_id"),
  {
    ...table("registry_capabilities", "capability bot_id status search_text", "capability, bot_id"),
    // PostgreSQL's capability rows carry their bot's status and search text (its migration 5).
    select: `capability, bot_id,
      (SELECT b.status FROM registry_bots b WHERE b.bot_id = registry_capabilities.bot_id),
      (SELECT b.search_text FROM registry_bots b WHERE b.bot_id = registry_capabilities.bot_id)`,
  },
  table("registry_controllers", "bot_id controller_id", "bot_id, controller_id"),
  identified("registry_attestations", "seq attestation_id issuer subject record published_at"),
  table("registry_log", "seq bot_id operation entry hash created_ms", "seq"),
  table("registry_used_nonces", "nonce expires_ms", "nonce"),
  // The migration's own nonce_key row is replaced by the source's (issued nonces stay valid).
  table("registry_meta", "name value", "name"),
];

/** The tables copied, in order. */
export const COPIED_TABLES: readonly string[] = TABLES.map((t) => t.name);

/** Rows per INSERT statement, and the most parameter bytes one statement carries. */
const BATCH_ROWS = 500;
const BATCH_BYTES = 4 * 1024 * 1024;

/** Options of `copySqliteToPostgres`. */
export interface CopyOptions {
  /** Hears the progress: called at the start of each table and after each batch. */
  onProgress?: (table: string, done: number, total: number) => void;
  /**
   * Runs inside the copy's transaction after the rows are in and counted, before it commits
   * (the caller's own checks, e.g. the audit chain); throwing rolls the whole copy back.
   */
  verify?: (tx: Resources) => Promise<void>;
}

/** What was copied: rows per table (equal in source and target, or the copy failed). */
export interface CopyResult {
  tables: { name: string; rows: number }[];
  totalRows: number;
  /** The audit log's newest hash (null for an empty log), equal in source and target. */
  logHead: string | null;
}

/** Raised for a refusal (non-empty target, unusable source): the message says what to do. */
export class CopyRefused extends Error {}

/**
 * Copies the SQLite database at `sqlitePath` (left untouched) into the empty PostgreSQL database
 * at `url`, all or nothing.
 */
export async function copySqliteToPostgres(
  sqlitePath: string,
  url: string,
  opts: CopyOptions = {},
): Promise<CopyResult> {
  const src = openSource(sqlitePath);
  try {
    // Migrate the target (creates the schema and its own nonce key), as the server would.
    await (await openPostgresStore(url)).close();
    const { url: driverUrl, ...socket } = socketOptions(url);
    const sql = postgres(driverUrl, {
      ...socket,
      max: 1,
      connect_timeout: 10,
      prepare: false,
      fetch_types: false,
      onnotice: () => {},
      types: { int8: INT8_AS_NUMBER },
      connection: { application_name: "signet db copy", statement_timeout: 0 },
    }) as unknown as postgres.Sql<Record<string, never>>;
    try {
      return await sql.begin(async (tx) => {
        // Nobody else writes these tables until the copy commits or rolls back.
        await tx.unsafe(`LOCK TABLE ${COPIED_TABLES.join(", ")} IN SHARE ROW EXCLUSIVE MODE`);
        await refuseNonEmpty(tx);
        src.exec("BEGIN"); // one read snapshot for counting and copying
        const tables: CopyResult["tables"] = [];
        for (const spec of TABLES) {
          const total = count(src, spec.name);
          opts.onProgress?.(spec.name, 0, total);
          if (spec.name === "registry_meta") await tx.unsafe("DELETE FROM registry_meta");
          const done = await copyTable(
            src,
            tx,
            spec,
            (n) => opts.onProgress?.(spec.name, n, total),
          );
          if (done !== total) {
            throw new Error(`${spec.name}: read ${done} rows, expected ${total}`);
          }
          tables.push({ name: spec.name, rows: total });
        }
        for (const spec of TABLES) {
          if (!spec.identity) continue;
          await tx.unsafe(
            `SELECT setval(pg_get_serial_sequence('${spec.name}', '${spec.identity}'),
               COALESCE((SELECT max(${spec.identity}) FROM ${spec.name}), 0) + 1, false)`,
          );
        }
        // Verify: every table holds exactly the source's rows, and the log ends on the same hash.
        for (const t of tables) {
          const [row] = await tx.unsafe<{ n: number }[]>(
            `SELECT count(*)::int AS n FROM ${t.name}`,
          );
          if (Number(row.n) !== t.rows) {
            throw new Error(`${t.name}: the target holds ${row.n} rows, the source ${t.rows}`);
          }
        }
        const srcHead = src.prepare("SELECT hash FROM registry_log ORDER BY seq DESC LIMIT 1")
          .get() as { hash: string } | undefined;
        const [dstHead] = await tx.unsafe<{ hash: string }[]>(
          "SELECT hash FROM registry_log ORDER BY seq DESC LIMIT 1",
        );
        if ((srcHead?.hash ?? null) !== (dstHead?.hash ?? null)) {
          throw new Error("the copied audit log does not end on the source's newest entry");
        }
        src.exec("COMMIT");
        if (opts.verify) await opts.verify(resourcesOver(tx));
        return {
          tables,
          totalRows: tables.reduce((n, t) => n + t.rows, 0),
          logHead: srcHead?.hash ?? null,
        };
      });
    } finally {
      await sql.end({ timeout: 5 });
    }
  } finally {
    src.close();
  }
}

// The SQLite file, read-only, at the schema version this build writes.
function openSource(path: string): DatabaseSync {
  // (The caller, server/ops/db_copy.ts, has checked that the file exists.)
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    const { user_version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
    if (user_version !== SQLITE_MIGRATIONS.length) {
      throw new CopyRefused(
        `${path} is at schema version ${user_version}, this build writes ${SQLITE_MIGRATIONS.length}: ` +
          (user_version < SQLITE_MIGRATIONS.length
            ? "start this version of signet on it once (it migrates at start), stop it, then copy"
            : "use the signet version that wrote it"),
      );
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

// Refuses a target holding any row but the migration's own nonce key.
async function refuseNonEmpty(tx: postgres.TransactionSql<Record<string, never>>): Promise<void> {
  const busy: string[] = [];
  for (const name of COPIED_TABLES) {
    const where = name === "registry_meta" ? " WHERE name <> 'nonce_key'" : "";
    const [row] = await tx.unsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${name}${where} LIMIT 1) s`,
    );
    if (Number(row.n) > 0) busy.push(name);
  }
  if (busy.length > 0) {
    throw new CopyRefused(
      `the target database is not empty (rows in ${busy.join(", ")}); ` +
        "copy only into a new, empty database (createdb), nothing was changed",
    );
  }
}

function count(src: DatabaseSync, table: string): number {
  return Number((src.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
}

// Streams one table from SQLite into PostgreSQL in batches; returns the rows copied.
async function copyTable(
  src: DatabaseSync,
  tx: postgres.TransactionSql<Record<string, never>>,
  spec: TableSpec,
  progress: (done: number) => void,
): Promise<number> {
  const select = spec.select ?? spec.columns.join(", ");
  const stmt = src.prepare(`SELECT ${select} FROM ${spec.name} ORDER BY ${spec.orderBy}`);
  const width = spec.columns.length;
  const head = `INSERT INTO ${spec.name} (${spec.columns.join(", ")})${
    spec.always ? " OVERRIDING SYSTEM VALUE" : ""
  } VALUES `;
  let batch: unknown[] = [];
  let bytes = 0;
  let done = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const rowsIn = batch.length / width;
    const tuples: string[] = [];
    for (let r = 0; r < rowsIn; r++) {
      const ps: string[] = [];
      for (let c = 0; c < width; c++) ps.push(`$${r * width + c + 1}`);
      tuples.push(`(${ps.join(", ")})`);
    }
    await tx.unsafe(head + tuples.join(", "), batch as postgres.ParameterOrJSON<never>[]);
    done += rowsIn;
    batch = [];
    bytes = 0;
    progress(done);
  };
  for (const row of stmt.iterate() as Iterable<Record<string, unknown>>) {
    // The values in SELECT order (distinct column names, none numeric: insertion order holds).
    for (const v of Object.values(row)) {
      const value = typeof v === "bigint" ? v.toString() : v;
      batch.push(value);
      if (typeof value === "string") bytes += value.length;
    }
    if (batch.length / width >= BATCH_ROWS || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  return done;
}
