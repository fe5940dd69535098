/** PostgreSQL audit log store (see ../registry_log.ts). */
import type { AuditLogStore } from "../registry_log.ts";
import { rows, type Sql, type TxState } from "./sql.ts";

/** The advisory lock every registry writer takes ("SignetLg" as a 64-bit integer). */
export const LOG_LOCK = "6010448901548821607";

/**
 * The audit log store over `sql`. Inside a transaction, `tx` remembers that the lock is held and
 * the head its own appends left, so the writes of one batch take the lock and read the head once.
 */
export function pgLog(sql: Sql, tx?: TxState): AuditLogStore {
  return {
    // Held until the transaction ends: writers queue here, so the head read next cannot fork.
    async lock() {
      if (tx?.logLocked) return;
      await rows(sql, `SELECT pg_advisory_xact_lock(${LOG_LOCK})`);
      if (tx) tx.logLocked = true;
    },
    async head() {
      if (tx?.logLocked && tx.logHead) return { ...tx.logHead };
      return (await rows<{ seq: number; hash: string }>(
        sql,
        "SELECT seq, hash FROM registry_log ORDER BY seq DESC LIMIT 1",
      ))[0];
    },
    async append(row) {
      await rows(
        sql,
        `INSERT INTO registry_log (seq, bot_id, operation, entry, hash, created_ms)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [row.seq, row.botId, row.operation, row.entry, row.hash, row.createdMs],
      );
      if (tx?.logLocked) tx.logHead = { seq: row.seq, hash: row.hash };
    },
    async read(opts) {
      const found = opts.botId === undefined
        ? await rows<{ entry: string }>(
          sql,
          "SELECT entry FROM registry_log WHERE seq > $1 ORDER BY seq LIMIT $2",
          [opts.after, opts.limit],
        )
        : await rows<{ entry: string }>(
          sql,
          "SELECT entry FROM registry_log WHERE bot_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
          [opts.botId, opts.after, opts.limit],
        );
      return found.map((r) => r.entry);
    },
    async readNewest(opts) {
      const before = opts.before ?? Number.MAX_SAFE_INTEGER;
      const found = opts.botId === undefined
        ? await rows<{ entry: string }>(
          sql,
          "SELECT entry FROM registry_log WHERE seq < $1 ORDER BY seq DESC LIMIT $2",
          [before, opts.limit],
        )
        : await rows<{ entry: string }>(
          sql,
          "SELECT entry FROM registry_log WHERE bot_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3",
          [opts.botId, before, opts.limit],
        );
      return found.map((r) => r.entry);
    },
    async count(sinceMs) {
      const [r] = await rows<{ total: number; since: number }>(
        sql,
        `SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE created_ms >= $1) AS since
         FROM registry_log`,
        [sinceMs],
      );
      return { total: r.total, since: r.since };
    },
  };
}
