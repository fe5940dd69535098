/** What the registry's domain functions receive. */
import { type Database, WriteBatcher } from "../../db/database.ts";
import { nonceKeyHex } from "../../db/registry_nonces.ts";
import type { PlanMemory } from "../../db/registry_bots.ts";
import { nonceKeyFromHex } from "./nonce.ts";
import { planMemory } from "./search.ts";

/**
 * The registry's state: the shared database and its group-committing writer, the nonce MAC key,
 * a clock, when it started, and the search planner's memory.
 */
export interface RegistryContext {
  db: Database;
  writes: WriteBatcher;
  nonceKey: Uint8Array;
  startedAtMs: number;
  now(): number;
  searchPlans: PlanMemory;
}

/** Builds the registry context over an open, migrated database. */
export function registryContext(db: Database): RegistryContext {
  return {
    db,
    writes: new WriteBatcher(db),
    nonceKey: nonceKeyFromHex(nonceKeyHex(db)),
    startedAtMs: Date.now(),
    now: () => Date.now(),
    searchPlans: planMemory(),
  };
}
