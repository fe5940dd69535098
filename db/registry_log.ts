/** Data access for the registry's hash-chained audit log. */
import type { Database } from "./database.ts";

/** The newest entry's sequence number and hash, or undefined when the log is empty. */
export function logHead(db: Database): { seq: number; hash: string } | undefined {
  const row = db.prepare("SELECT seq, hash FROM registry_log ORDER BY seq DESC LIMIT 1").get() as
    | { seq: number; hash: string }
    | undefined;
  return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
}

/** Appends one entry (its JSON text); call inside the transaction of the write it records. */
export function appendLogRow(
  db: Database,
  row: {
    seq: number;
    botId: string;
    operation: string;
    entry: string;
    hash: string;
    createdMs: number;
  },
): void {
  db.prepare(
    "INSERT INTO registry_log (seq, bot_id, operation, entry, hash, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(row.seq, row.botId, row.operation, row.entry, row.hash, row.createdMs);
}

/** Up to `limit` entries (JSON text) with seq > `after`, optionally of one bot, in order. */
export function readLogRows(
  db: Database,
  opts: { after: number; limit: number; botId?: string },
): string[] {
  const rows = opts.botId === undefined
    ? db.prepare("SELECT entry FROM registry_log WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(opts.after, opts.limit)
    : db.prepare("SELECT entry FROM registry_log WHERE bot_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(opts.botId, opts.after, opts.limit);
  return (rows as { entry: string }[]).map((r) => r.entry);
}

/** Number of entries, and of entries created at or after `sinceMs`. */
export function countLog(db: Database, sinceMs: number): { total: number; since: number } {
  const total = db.prepare("SELECT COUNT(*) AS n FROM registry_log").get() as { n: number };
  const since = db.prepare("SELECT COUNT(*) AS n FROM registry_log WHERE created_ms >= ?")
    .get(sinceMs) as { n: number };
  return { total: Number(total.n), since: Number(since.n) };
}
