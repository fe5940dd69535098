/**
 * Group commit on PostgreSQL, as the SQLite store does it (db/sqlite/database.ts, WriteBatcher):
 * the transactions submitted while one batch runs share the next batch's one `BEGIN … COMMIT` on
 * one connection, in order, so each sees the ones before it, and each caller hears back only after
 * that COMMIT. Registry writers all queue on one advisory lock (the audit log's head), so their
 * transactions run one at a time anyway: in one batch they pay the BEGIN, the lock and the COMMIT
 * once instead of once each.
 *
 * A transaction that throws changes nothing: the batch is rolled back and run again with a
 * savepoint around each transaction, so only the failing one is undone. A deadlock or
 * serialization failure (another instance's batch) runs the batch again; an outage fails it all.
 */
import type postgres from "postgres";
import { CommitQueue, type Outcome } from "../commit_queue.ts";
import { freshTxState, isConnectionError, sqlState, type TxState } from "./sql.ts";

/**
 * One transaction's work on the connection it is given (the batch's, or a savepoint's), with what
 * the batch's transaction has learnt so far (shared by the works of one batch).
 */
export type BatchedWork<T> = (
  sql: postgres.TransactionSql<Record<string, never>>,
  state: TxState,
) => Promise<T>;

/** Runs `fn` inside one transaction on a connection of the pool (postgres.js `sql.begin`). */
export type Begin = <T>(
  fn: (sql: postgres.TransactionSql<Record<string, never>>) => Promise<T>,
) => Promise<T>;

/** The most transactions one batch runs. */
const MAX_BATCH = 64;
/** How often a batch that lost a deadlock or serialization race is run again. */
const RETRIES = 3;

/** Queues transactions and commits them in batches (the queue: db/commit_queue.ts). */
export class GroupCommit {
  readonly #queue: CommitQueue<BatchedWork<unknown>>;

  /**
   * `begin` opens a transaction; `guard` bounds a batch's time (a batch past it rejects, and its
   * transaction rolls back instead of committing once `abandoned()` is true).
   */
  constructor(
    private readonly begin: Begin,
    private readonly guard: <T>(run: (abandoned: () => boolean) => Promise<T>) => Promise<T>,
  ) {
    this.#queue = new CommitQueue((batch) => this.#runBatch(batch), MAX_BATCH);
  }

  /** Runs `work` in the next batch; settles after that batch's COMMIT (or its failure). */
  run<T>(work: BatchedWork<T>): Promise<T> {
    return this.#queue.submit<T>(work);
  }

  /** Announces a transaction being prepared; call the returned function once it is submitted. */
  expect(): () => void {
    return this.#queue.expect();
  }

  async #runBatch(batch: BatchedWork<unknown>[]): Promise<Outcome[]> {
    for (let attempt = 0;; attempt++) {
      try {
        return (await this.#attempt(batch, false)) ?? (await this.#attempt(batch, true))!;
      } catch (err) {
        const code = sqlState(err);
        if (attempt >= RETRIES || (code !== "40P01" && code !== "40001")) throw err;
      }
    }
  }

  // One transaction for the whole batch. Without savepoints, a failing write rolls everything
  // back and this returns null (or, alone in its batch, its own failure); with them, it is undone
  // alone.
  async #attempt(
    batch: BatchedWork<unknown>[],
    savepoints: boolean,
  ): Promise<Outcome[] | null> {
    let failed: unknown = undefined;
    try {
      return await this.guard((abandoned) =>
        this.begin(async (sql) => {
          const outcomes: Outcome[] = [];
          let state = freshTxState();
          for (const work of batch) {
            if (!savepoints) {
              try {
                outcomes.push({ ok: true, value: await work(sql, state) });
              } catch (err) {
                failed = err;
                throw err;
              }
              continue;
            }
            try {
              outcomes.push({ ok: true, value: await sql.savepoint((sp) => work(sp, state)) });
            } catch (err) {
              if (isConnectionError(err)) throw err;
              outcomes.push({ ok: false, value: err });
              // What the failed work learnt (a lock, a head) was rolled back with it.
              state = freshTxState();
            }
          }
          // A caller already told "unavailable": roll back rather than commit behind its back.
          if (abandoned()) throw new Error("batch abandoned after its deadline");
          return outcomes;
        })
      );
    } catch (err) {
      if (savepoints || failed === undefined || err !== failed) throw err;
      if (batch.length === 1) return [{ ok: false, value: err }];
      const code = sqlState(err);
      if (isConnectionError(err) || code === "40P01" || code === "40001") throw err;
      return null;
    }
  }
}
