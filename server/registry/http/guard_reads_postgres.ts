/**
 * The guard's registry reads from PostgreSQL (see guard_registry_reads.ts): a small pool of the
 * guard thread's own, running the store's own statements (db/postgres/registry_bots.ts), so the
 * rows are the ones the app would read. A read that fails or takes over READ_TIMEOUT_MS is passed
 * to the app, which answers it (503 during an outage).
 */
import postgres from "postgres";
import type { BotQuery, PlanMemory } from "../../../db/registry_bots.ts";
import { pgBots } from "../../../db/postgres/registry_bots.ts";
import { INT8_AS_NUMBER, socketOptions } from "../../../db/postgres/store.ts";
import type { GuardReadSource } from "./guard_read_source.ts";

/** Connections of the guard's pool: reads wait on PostgreSQL's backends, not on this thread. */
const POOL_SIZE = 4;
/** Past this, a read is handed to the app instead. */
const READ_TIMEOUT_MS = 2_000;

const encoder = new TextEncoder();

/** Reads from the PostgreSQL database at `url` (connecting lazily, on the first read). */
export function openPostgresReads(url: string): GuardReadSource {
  const { url: driverUrl, path } = socketOptions(url);
  const sql = postgres(driverUrl, {
    ...(path ? { path } : {}),
    max: POOL_SIZE,
    connect_timeout: Math.ceil(READ_TIMEOUT_MS / 1000),
    idle_timeout: 60,
    prepare: true,
    fetch_types: false,
    onnotice: () => {},
    types: { int8: INT8_AS_NUMBER },
    connection: { application_name: "signet-guard", statement_timeout: READ_TIMEOUT_MS },
  }) as unknown as postgres.Sql<Record<string, never>>;
  const bots = pgBots(sql);
  return {
    async loadBot(botId: string) {
      const row = await bounded(bots.loadRow(botId));
      return row && { record: encoder.encode(row.record), version: row.version };
    },
    search: (query: BotQuery, memory: PlanMemory) => bounded(bots.search(query, memory)),
    close: () => sql.end({ timeout: 1 }),
  };
}

// `p`, or a rejection once READ_TIMEOUT_MS has passed.
function bounded<T>(p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  p.catch(() => {}); // a late failure after the timeout is not unhandled
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("read timed out")), READ_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}
