/** The postgres.js handle the resource files share, and how driver failures become domain errors. */
import type postgres from "postgres";
import { DomainError } from "../../protocol/errors.ts";

/** A pool or one transaction's connection; every resource runs its SQL through one of these. */
export type Sql =
  | postgres.Sql<Record<string, never>>
  | postgres.TransactionSql<Record<string, never>>;

/**
 * Runs `text` with positional `$n` parameters as a prepared statement; returns the rows. With
 * `planEachTime`, PostgreSQL plans it for these parameter values every time (an unnamed statement):
 * for searches, whose best plan depends on the pattern (a named statement can settle on one generic
 * plan after five runs, and for a common word with a capability filter that plan sorts every bot
 * holding the word: 42–57 ms instead of 0.8; docs/decisions/storage.md).
 */
export async function rows<T>(
  sql: Sql,
  text: string,
  params: unknown[] = [],
  opts: { planEachTime?: boolean } = {},
): Promise<T[]> {
  const res = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
    prepare: !opts.planEachTime,
  });
  // A plain array, as the SQLite store returns (postgres.js adds count, columns, …).
  return Array.from(res) as T[];
}

/** Runs `text` and returns how many rows it changed. */
export async function changes(sql: Sql, text: string, params: unknown[] = []): Promise<number> {
  const res = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
    prepare: true,
  });
  return res.count;
}

/**
 * What one transaction has learnt that its later statements may reuse instead of asking again:
 * that it holds the audit log's lock, and the log's head after its own last append. Only valid
 * while nothing it covers is rolled back: a batch starts a fresh one after a failed savepoint.
 */
export interface TxState {
  logLocked: boolean;
  logHead?: { seq: number; hash: string };
}

/** A state that knows nothing yet. */
export function freshTxState(): TxState {
  return { logLocked: false };
}

/** The message every outage surfaces as (the HTTP layer answers 503). */
export const UNAVAILABLE = "the database is unavailable; try again shortly";

// postgres.js's own connection error codes, and Node/Deno socket errors.
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Whether `err` means PostgreSQL cannot be reached now: no connection could be made or it was
 * lost, or the server is shutting down or starting. Unlike isConnectionError, not a statement cut
 * off by its timeout or a full pool: the server answered those.
 */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string" && ["57014", "25P03", "53300"].includes(code)) return false;
  return isConnectionError(err);
}

/** Whether `err` means the server could not be reached or went away (not a bad query). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== "string") {
    return err instanceof Deno.errors.ConnectionRefused ||
      err instanceof Deno.errors.ConnectionReset ||
      err instanceof Deno.errors.BrokenPipe;
  }
  if (CONNECTION_CODES.has(code)) return true;
  // A Unix-domain socket whose server stopped (its file is gone); not any missing file.
  if (code === "ENOENT") return (err as { syscall?: unknown }).syscall === "connect";
  // 08: connection exception; 57P01-57P03: admin/crash shutdown, cannot connect now;
  // 53300: too many connections; 57014 (statement timeout) is a query cut off by the server.
  // 25P03: the server ended a transaction left idle too long.
  return code.startsWith("08") || /^57P0[1-3]$/.test(code) || code === "53300" ||
    code === "57014" || code === "25P03";
}

/** Maps a driver failure to DomainError("unavailable") when it is an outage; others pass as-is. */
export function mapError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  if (isConnectionError(err)) return new DomainError("unavailable", UNAVAILABLE);
  // Text PostgreSQL cannot hold (U+0000): the client's input, never a server fault.
  const code = sqlState(err);
  if (code === "22021" || code === "22P05") {
    return new DomainError("invalid", "text must not contain U+0000 (NUL)");
  }
  return err;
}

/** The SQLSTATE of a PostgreSQL error, if it is one. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" ? code : undefined;
}
