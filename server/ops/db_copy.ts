/**
 * `signet db copy --to postgres://…`: moves the embedded SQLite data set into an empty PostgreSQL
 * database (db/postgres/copy.ts does the SQL), verifies the audit chain before committing, and
 * prints a summary. The SQLite file is only read (refused while a server serves it), and a note
 * beside it records the copy (db/sqlite/copied_marker.ts).
 */
import { loadServerConfig, parseDatabaseUrl, redactDatabaseUrl } from "../config.ts";
import { verifyChain } from "../registry/audit.ts";
import type { LogEntryT } from "../../protocol/registry/schemas.ts";
import type { Resources } from "../../db/store.ts";
import { copiedMarkerPath, copiedNote, markCopied } from "../../db/sqlite/copied_marker.ts";
import { holdDataDirAtRest } from "../instance.ts";

/** The usage text of `signet db`. */
export const DB_USAGE =
  `Usage: SERVICE_DATABASE_URL=postgres://user:password@host:5432/database signet db copy
       signet db copy --to postgres://user:password@host:5432/database

Copies the embedded SQLite database (SERVICE_DATA_DIR/signet.db) into an EMPTY PostgreSQL
database, in one transaction (all or nothing), keeping every id and the registry's nonce key;
then checks the row counts and the audit chain. The SQLite file is only read: stop signet first
(the copy is refused while it serves the data dir), then start it with SERVICE_DATABASE_URL set
to the target. SERVICE_DATA_DIR/signet.db.copied then notes the copy: signet backup without
SERVICE_DATABASE_URL refuses the stale file while it is there. Without --to the target is
SERVICE_DATABASE_URL, which keeps the password off signet's command line (exported from a file
only you can read, it also stays out of the shell's history).
`;

const PAGE = 1000;

/** `signet db <subcommand> …`; returns the exit code. */
export async function dbCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "help" || sub === "--help" || sub === "-h") {
    console.log(DB_USAGE.trimEnd());
    return 0;
  }
  if (sub !== "copy") {
    console.error(`signet db: ${sub ? `unknown subcommand "${sub}"` : "missing subcommand"}\n`);
    console.error(DB_USAGE.trimEnd());
    return 2;
  }
  let to: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--to" && i + 1 < rest.length) to = rest[++i];
    else if (a.startsWith("--to=")) to = a.slice(5);
    else if (a === "--help" || a === "-h") {
      console.log(DB_USAGE.trimEnd());
      return 0;
    } else {
      console.error(`signet db copy: unexpected argument ${a.startsWith("-") ? a : "(value)"}`);
      console.error(DB_USAGE.trimEnd());
      return 2;
    }
  }
  // The target: --to, else SERVICE_DATABASE_URL (read with the rest of the configuration below).
  let url: string | null = null;
  if (to !== undefined) {
    try {
      url = parseDatabaseUrl(to);
    } catch { /* said below */ }
    if (url === null) {
      console.error(
        "signet db copy: --to must be a postgres:// or postgresql:// URL " +
          "(postgres://user:password@host:5432/database)",
      );
      return 2;
    }
  }
  let shown = "";
  let atRest: { release(): void } | null = null;
  let began = false; // whether the copy's transaction started (a failure then rolled it back)
  let copied = false;
  try {
    const config = loadServerConfig();
    url ??= config.databaseUrl;
    if (url === null) {
      console.error("signet db copy: set SERVICE_DATABASE_URL (or --to) to the target database\n");
      console.error(DB_USAGE.trimEnd());
      return 2;
    }
    shown = redactDatabaseUrl(url);
    // Before the data dir is touched (the lock below creates run/): a wrong SERVICE_DATA_DIR
    // leaves nothing behind.
    const missing = await Deno.stat(config.databasePath).then(
      () => false,
      (err) => {
        if (err instanceof Deno.errors.NotFound) return true;
        throw err; // said below, as it is (no permission, …)
      },
    );
    if (missing) {
      console.error(
        `signet db copy: no SQLite database at ${config.databasePath}: is SERVICE_DATA_DIR right?`,
      );
      return 1;
    }
    // Held for the whole copy: a server starting meanwhile is refused, as one already running is.
    atRest = await holdDataDirAtRest(config.dataDir);
    if (atRest === null) {
      console.error(
        `signet db copy: a Signet server is serving ${config.dataDir}; stop it first (what it ` +
          "took after the copy would not be in PostgreSQL)",
      );
      return 1;
    }
    const earlier = await copiedNote(config.databasePath);
    if (earlier !== null) {
      // Allowed (the file may have been served again since), but never silently.
      console.error(
        `Note: this file was copied before (${earlier.replace(/\.$/, "")}). This copy holds the ` +
          "file as it is now; " +
          "what PostgreSQL took after that earlier copy is not in it.",
      );
    }
    const { copySqliteToPostgres } = await import("../../db/postgres/copy.ts");
    const tty = Deno.stderr.isTerminal();
    const started = performance.now();
    let chain = 0;
    const report = progressReporter(tty);
    const result = await copySqliteToPostgres(config.databasePath, url, {
      onProgress: (...progress) => {
        began = true;
        report(...progress);
      },
      verify: async (tx) => {
        chain = await checkChain(tx);
      },
    });
    copied = true;
    const noted = await markCopied(config.databasePath, shown).then(
      () => true,
      (err) => {
        console.error(
          `signet db copy: the copy is complete, but the note ${
            copiedMarkerPath(config.databasePath)
          } could not be written (${(err as Error).message}): signet backup without ` +
            "SERVICE_DATABASE_URL will not know the embedded file is stale",
        );
        return false;
      },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const width = Math.max(...result.tables.map((t) => t.name.length));
    const lines = [
      `Copied ${config.databasePath} into ${shown} in ${seconds} s:`,
      ...result.tables.map((t) => `  ${t.name.padEnd(width)}  ${rows(t.rows)}`),
      `Row counts match the source in every table (${rows(result.totalRows)}).`,
      `Audit chain verified: ${chain} entries${result.logHead ? `, head ${result.logHead}` : ""}.`,
      noted
        ? `The SQLite file was not changed; ${copiedMarkerPath(config.databasePath)} notes the ` +
          "copy, so that signet backup without SERVICE_DATABASE_URL refuses the stale file."
        : "The SQLite file was not changed.",
      `Start signet with SERVICE_DATABASE_URL=${shown} (with its password) to use it.`,
    ];
    console.log(lines.join("\n"));
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`signet db copy: ${url === null ? message : scrub(message, url)}`);
    if (!copied && shown) {
      console.error(
        `The target ${shown} was left as it was${began ? " (the copy rolled back)" : ""}.`,
      );
    }
    return 1;
  } finally {
    atRest?.release();
  }
}

// Reads the copied log in order and checks its hash chain; returns the number of entries.
async function checkChain(tx: Resources): Promise<number> {
  const entries: LogEntryT[] = [];
  for (let after = 0;;) {
    const page = await tx.log.read({ after, limit: PAGE });
    for (const text of page) entries.push(JSON.parse(text) as LogEntryT);
    if (page.length < PAGE) break;
    after = entries[entries.length - 1].seq;
  }
  const problem = verifyChain(entries);
  if (problem) throw new Error(`the copied audit log fails verification: ${problem}`);
  return entries.length;
}

// On a terminal: one line per table, rewritten as rows go in. Otherwise: a line per finished table.
function progressReporter(tty: boolean): (table: string, done: number, total: number) => void {
  const enc = new TextEncoder();
  const write = (s: string) => Deno.stderr.writeSync(enc.encode(s));
  return (table, done, total) => {
    if (tty) {
      write(`\r\x1b[K  copying ${table}: ${done} of ${rows(total)}`);
      if (done === total) write("\n");
    } else if (done === total) {
      write(`copied ${table}: ${rows(total)}\n`);
    }
  };
}

// The message with the URL's password removed (a driver may echo a connection string).
function scrub(message: string, url: string): string {
  const password = decodeURIComponent(new URL(url).password);
  return password ? message.split(password).join("***") : message;
}

/** `n rows`, or `1 row`. */
function rows(n: number): string {
  return `${n} row${n === 1 ? "" : "s"}`;
}
