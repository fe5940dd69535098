/** The registry's audit log store: one hash chain, one row per accepted mutation. */

/** One row to append. */
export interface LogRow {
  seq: number;
  botId: string;
  operation: string;
  /** The entry's JSON text. */
  entry: string;
  hash: string;
  createdMs: number;
}

/** The hash-chained audit log. */
export interface AuditLogStore {
  /**
   * Serializes registry writers: until the calling transaction ends, no other transaction can
   * pass this point, so reading the head and appending after it cannot fork the chain. Call it
   * first in every transaction that appends.
   */
  lock(): Promise<void>;
  /** The newest entry's sequence number and hash, or undefined when the log is empty. */
  head(): Promise<{ seq: number; hash: string } | undefined>;
  /** Appends one entry; call inside the transaction of the write it records, after `lock`. */
  append(row: LogRow): Promise<void>;
  /** Up to `limit` entries (JSON text) with seq > `after`, optionally of one bot, in order. */
  read(opts: { after: number; limit: number; botId?: string }): Promise<string[]>;
  /**
   * Up to `limit` entries (JSON text) with seq < `before` (all when null), optionally of one bot,
   * newest first.
   */
  readNewest(opts: { before: number | null; limit: number; botId?: string }): Promise<string[]>;
  /** Number of entries, and of entries created at or after `sinceMs`. */
  count(sinceMs: number): Promise<{ total: number; since: number }>;
}
