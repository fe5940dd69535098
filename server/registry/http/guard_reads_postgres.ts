/**
 * The guard's registry reads from PostgreSQL (see guard_registry_reads.ts): a small pool of the
 * guard thread's own, running the store's own statements (db/postgres/registry_bots.ts), so the
 * rows are the ones the app would read. A read that fails or takes over READ_TIMEOUT_MS is passed
 * to the app, which answers it (503 during an outage).
 */
import postgres from "postgres";
import type { BotQuery, PlanMemory } from "../../../db/registry_bots.ts";
import { loadBotRowBytes, searchBotBytes } from "../../../db/postgres/registry_bots.ts";
import { INT8_AS_NUMBER, socketOptions, withTimeout } from "../../../db/postgres/store.ts";
import type { GuardReadSource } from "./guard_read_source.ts";

/**
 * Connections of each of the guard's two pools: bot reads and searches with one plan for any
 * values; searches planned for their values.
 */
export const GUARD_POOL_SIZE = 4;
/**
 * Statements sent to a connection still running one: none. A statement waits for whichever
 * connection frees first instead of queueing behind a slow one (postgres.js pipelines up to 100 by
 * default). Searches under the bench's load, 16 rounds against pipelining: p99 17–25 ms (median
 * 21) against 24–33 (27), at 10–15% fewer searches/s (docs/decisions/storage.md).
 */
const PIPELINED = 0;
/**
 * Bot-read statements running at once. Fewer means more ids per statement under load: measured
 * with 16 connections at 100,000 bots, 4 gave 16.7k req/s, 2 gave 20.4k and 1 21.5k (machine
 * shared). So one runs at a time, and a second starts only once the first has run SLOW_READ_MS:
 * reads keep moving while a statement is slow. Against SQLite's rate in the same run (quiet
 * machine, 6 rounds each): two at once 0.50x; one, the second after 20 ms 0.58–0.59x; after 50 ms
 * 0.60x (`= ANY($1::text[])` instead of the JSON array: 0.50x).
 */
const BOT_READS_IN_FLIGHT = 2;
/** A bot-read statement running this long lets a second one start beside it (ms). */
const SLOW_READ_MS = 50;
/** Past this, a read is handed to the app instead. */
const READ_TIMEOUT_MS = 2_000;

/**
 * One of the guard's pools on the database at `url` (connecting lazily), with `settings` for each
 * of its connections (on top of a statement_timeout of READ_TIMEOUT_MS).
 */
export function openGuardPool(
  url: string,
  settings: { plan_cache_mode?: string; statement_timeout?: number } = {},
): postgres.Sql<Record<string, never>> {
  const { url: driverUrl, ...socket } = socketOptions(url);
  return postgres(driverUrl, {
    ...socket,
    max: GUARD_POOL_SIZE,
    // postgres.js reads this option (src/index.js) though its types do not declare it.
    ...({ max_pipeline: PIPELINED } as object),
    connect_timeout: Math.ceil(READ_TIMEOUT_MS / 1000),
    idle_timeout: 60,
    prepare: true,
    fetch_types: false,
    onnotice: () => {},
    types: { int8: INT8_AS_NUMBER },
    connection: {
      application_name: "signet-guard",
      statement_timeout: READ_TIMEOUT_MS,
      ...settings,
    },
  }) as unknown as postgres.Sql<Record<string, never>>;
}

/** Reads from the PostgreSQL database at `url` (connecting lazily, on the first read). */
export function openPostgresReads(url: string): GuardReadSource {
  const sql = openGuardPool(url);
  // Searches whose plan depends on their values, planned for them at every run (searchBotBytes).
  const customPlans = openGuardPool(url, { plan_cache_mode: "force_custom_plan" });
  const loads = new BatchedLoads((ids) => bounded(loadBotRowBytes(sql, ids)));
  return {
    loadBot: (botId: string) => loads.load(botId),
    // The records as bytes: a page splices them, and as strings each search's rows cost the
    // thread several milliseconds of garbage collection under load (docs/decisions/storage.md).
    search: (query: BotQuery, memory: PlanMemory) =>
      bounded(searchBotBytes(sql, query, memory, customPlans)),
    releaseMemory: () => {},
    close: async () => {
      await Promise.all([sql.end({ timeout: 1 }), customPlans.end({ timeout: 1 })]);
    },
  };
}

type Row = { record: Uint8Array; version: number };

/**
 * Bot reads, at most BOT_READS_IN_FLIGHT statements at a time: ids asked for while all are busy wait and go
 * together in the next one (one statement for many requests under load, none waiting when idle).
 */
class BatchedLoads {
  #queue = new Map<string, { resolve(row: Row | undefined): void; reject(e: unknown): void }[]>();
  /** The statements running now, with when each started. */
  #running = new Set<{ started: number }>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  constructor(private readonly read: (ids: string[]) => Promise<Map<string, Row>>) {}

  load(botId: string): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.#queue.get(botId);
      if (waiting) waiting.push({ resolve, reject });
      else this.#queue.set(botId, [{ resolve, reject }]);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running.size < BOT_READS_IN_FLIGHT && this.#queue.size > 0) {
      if (this.#running.size > 0) {
        const oldest = Math.min(...[...this.#running].map((r) => r.started));
        const wait = oldest + SLOW_READ_MS - performance.now();
        if (wait > 0) {
          // Ids wait for the running statement, unless it turns out slow.
          this.#timer ??= setTimeout(() => {
            this.#timer = null;
            this.#pump();
          }, wait);
          return;
        }
      }
      const batch = this.#queue;
      this.#queue = new Map();
      const run = { started: performance.now() };
      this.#running.add(run);
      this.read([...batch.keys()]).then(
        (found) => {
          for (const [id, waiters] of batch) for (const w of waiters) w.resolve(found.get(id));
        },
        (err) => {
          for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        },
      ).finally(() => {
        this.#running.delete(run);
        this.#pump();
      });
    }
  }
}

// `p`, or a rejection once READ_TIMEOUT_MS has passed.
function bounded<T>(p: Promise<T>): Promise<T> {
  return withTimeout(p, READ_TIMEOUT_MS, () => new Error("read timed out"));
}
