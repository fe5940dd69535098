/** What the guard thread's registry reads read from (guard_registry_reads.ts), per engine. */
import type { BotHit, BotHitBytes, BotQuery, PlanMemory } from "../../../db/registry_bots.ts";

/** A value now, or one to wait for. */
export type Maybe<T> = T | Promise<T>;

/** Where the guard's reads come from (one database connection of the thread's own). */
export interface GuardReadSource {
  /** The stored record's bytes and version, or undefined for an unknown bot. */
  loadBot(botId: string): Maybe<{ record: Uint8Array; version: number } | undefined>;
  /** One search page's rows (as the store's `bots.search`), the records as text or as bytes. */
  search(query: BotQuery, memory: PlanMemory): Maybe<BotHit[] | BotHitBytes[]>;
  /** Gives back memory the connection holds for speed (nothing where it holds none). */
  releaseMemory(): void;
  close(): void | Promise<void>;
}
