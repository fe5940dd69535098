/** The registry's hash-chained audit log on SQLite. */
import type { Database } from "./database.ts";
import type { AuditLogStore, LogRow } from "../registry_log.ts";
import type { Sync } from "./sync.ts";

/** The audit log store over one SQLite connection. */
export class SqliteAuditLog implements Sync<AuditLogStore> {
  /** The methods that write. */
  static readonly WRITES = ["lock", "append"] as const;
  constructor(private readonly db: Database) {}

  /** Nothing to do: every SQLite transaction holds the one write lock (BEGIN IMMEDIATE). */
  lock(): void {}

  head(): { seq: number; hash: string } | undefined {
    const row = this.db.prepare("SELECT seq, hash FROM registry_log ORDER BY seq DESC LIMIT 1")
      .get() as { seq: number; hash: string } | undefined;
    return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
  }

  append(row: LogRow): void {
    this.db.prepare(
      "INSERT INTO registry_log (seq, bot_id, operation, entry, hash, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(row.seq, row.botId, row.operation, row.entry, row.hash, row.createdMs);
  }

  read(opts: { after: number; limit: number; botId?: string }): string[] {
    const rows = opts.botId === undefined
      ? this.db.prepare("SELECT entry FROM registry_log WHERE seq > ? ORDER BY seq LIMIT ?")
        .all(opts.after, opts.limit)
      : this.db.prepare(
        "SELECT entry FROM registry_log WHERE bot_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      ).all(opts.botId, opts.after, opts.limit);
    return (rows as { entry: string }[]).map((r) => r.entry);
  }

  readNewest(opts: { before: number | null; limit: number; botId?: string }): string[] {
    const before = opts.before ?? Number.MAX_SAFE_INTEGER;
    const rows = opts.botId === undefined
      ? this.db.prepare("SELECT entry FROM registry_log WHERE seq < ? ORDER BY seq DESC LIMIT ?")
        .all(before, opts.limit)
      : this.db.prepare(
        "SELECT entry FROM registry_log WHERE bot_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
      ).all(opts.botId, before, opts.limit);
    return (rows as { entry: string }[]).map((r) => r.entry);
  }

  count(sinceMs: number): { total: number; since: number } {
    const total = this.db.prepare("SELECT COUNT(*) AS n FROM registry_log").get() as { n: number };
    const since = this.db.prepare("SELECT COUNT(*) AS n FROM registry_log WHERE created_ms >= ?")
      .get(sinceMs) as { n: number };
    return { total: Number(total.n), since: Number(since.n) };
  }
}
