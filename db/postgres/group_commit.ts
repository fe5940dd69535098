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
import { isConnectionError, sqlState } from "./sql.ts";

/** One transaction's work on the connection it is given (the batch's, or a savepoint's). */
export type BatchedWork<T> = (sql: postgres.TransactionSql<Record<string, never>>) => Promise<T>;

/** Runs `fn` inside one transaction on a connection of the pool (postgres.js `sql.begin`). */
export type Begin = <T>(
  fn: (sql: postgres.TransactionSql<Record<string, never>>) => Promise<T>,
) => Promise<T>;

/** How long a queued write may wait for announced writes (`expect()`) to join its batch. */
const MAX_BATCH_WAIT_MS = 3;
/** The most transactions one batch runs. */
const MAX_BATCH = 64;
/** How often a batch that lost a deadlock or serialization race is run again. */
const RETRIES = 3;

interface Pending {
  work: BatchedWork<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Outcome = { ok: boolean; value: unknown };

/** Queues transactions and commits them in batches. */
export class GroupCommit {
  #queue: Pending[] = [];
  #expected = 0;
  #scheduled: "now" | "soon" | null = null;
  #running = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `begin` opens a transaction; `guard` bounds a batch's time (a batch past it rejects, and its
   * transaction rolls back instead of committing once `abandoned()` is true).
   */
  constructor(
    private readonly begin: Begin,
    private readonly guard: <T>(run: (abandoned: () => boolean) => Promise<T>) => Promise<T>,
  ) {}

  /** Runs `work` in the next batch; settles after that batch's COMMIT (or its failure). */
  run<T>(work: BatchedWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Announces a transaction being prepared; call the returned function once it is submitted. */
  expect(): () => void {
    this.#expected++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#expected--;
      this.#schedule();
    };
  }

  #schedule(): void {
    if (this.#queue.length === 0 || this.#scheduled === "now" || this.#running) return;
    if (this.#expected > 0 && this.#queue.length < MAX_BATCH) {
      if (this.#scheduled === null) {
        this.#scheduled = "soon";
        this.#timer = setTimeout(() => this.#flush(), MAX_BATCH_WAIT_MS);
      }
      return;
    }
    clearTimeout(this.#timer);
    this.#scheduled = "now";
    setImmediate(() => this.#flush());
  }

  async #flush(): Promise<void> {
    if (this.#scheduled === null || this.#running) return;
    clearTimeout(this.#timer);
    this.#scheduled = null;
    this.#running = true;
    const batch = this.#queue.splice(0, MAX_BATCH);
    try {
      const outcomes = await this.#runBatch(batch);
      batch.forEach((p, i) =>
        outcomes[i].ok ? p.resolve(outcomes[i].value) : p.reject(outcomes[i].value)
      );
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }

  async #runBatch(batch: Pending[]): Promise<Outcome[]> {
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
  async #attempt(batch: Pending[], savepoints: boolean): Promise<Outcome[] | null> {
    let failed: unknown = undefined;
    try {
      return await this.guard((abandoned) =>
        this.begin(async (sql) => {
          const outcomes: Outcome[] = [];
          for (const { work } of batch) {
            if (!savepoints) {
              try {
                outcomes.push({ ok: true, value: await work(sql) });
              } catch (err) {
                failed = err;
                throw err;
              }
              continue;
            }
            try {
              outcomes.push({ ok: true, value: await sql.savepoint((sp) => work(sp)) });
            } catch (err) {
              if (isConnectionError(err)) throw err;
              outcomes.push({ ok: false, value: err });
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
