/**
 * The queue both engines' group commit share (db/sqlite/database.ts `WriteBatcher`,
 * db/postgres/group_commit.ts `GroupCommit`): writes submitted while a batch runs wait for the next
 * one, one batch runs at a time, and each write's promise settles with its own outcome once its
 * batch has run. A batch runs at the event loop's next turn, unless writes announced with
 * `expect()` are still being prepared (a registry mutation verifying its signatures): then it waits
 * for them, at most MAX_BATCH_WAIT_MS, since a COMMIT costs far more than one more write in it.
 */

/** How long a queued write may wait for writes still being prepared to join its batch. */
const MAX_BATCH_WAIT_MS = 3;

/** What a batch's runner reports for each write, in order. */
export type Outcome = { ok: boolean; value: unknown };

interface Pending<W> {
  work: W;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Queues works of type `W` and hands them to `runBatch` in batches of at most `maxBatch`. */
export class CommitQueue<W> {
  #queue: Pending<W>[] = [];
  #expected = 0;
  #scheduled: "now" | "soon" | null = null;
  #running = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `runBatch` runs the works (as one transaction, say) and returns one outcome per work, or
   * throws to fail them all. `maxWaitMs` bounds the wait for announced writes (tests lengthen it,
   * so that what they check does not depend on the machine's speed).
   */
  constructor(
    private readonly runBatch: (works: W[]) => Promise<Outcome[]>,
    private readonly maxBatch = Infinity,
    private readonly maxWaitMs = MAX_BATCH_WAIT_MS,
  ) {}

  /** Queues `work`; settles with its outcome once its batch has run. */
  submit<T>(work: W): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  /**
   * Announces a write that is being prepared and will probably be submitted soon; call the
   * returned function once, after submitting it or giving up.
   */
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

  /** Resolves once every write submitted so far has settled. */
  async idle(): Promise<void> {
    while (this.#running || this.#queue.length > 0) {
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  #schedule(): void {
    if (this.#queue.length === 0 || this.#scheduled === "now" || this.#running) return;
    if (this.#expected > 0 && this.#queue.length < this.maxBatch) {
      if (this.#scheduled === null) {
        this.#scheduled = "soon";
        this.#timer = setTimeout(() => this.#flush(), this.maxWaitMs);
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
    const batch = this.#queue.splice(0, this.maxBatch);
    try {
      const outcomes = await this.runBatch(batch.map((p) => p.work));
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
}
