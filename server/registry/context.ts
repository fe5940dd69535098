/** What the registry's domain functions receive. */
import type { Store } from "../../db/store.ts";
import type { PlanMemory } from "../../db/registry_bots.ts";
import { nonceKeyFromHex } from "./nonce.ts";
import { planMemory } from "./search.ts";

/**
 * The registry's state: the shared store, the instance's name, the nonce MAC key, a clock, when it
 * started, and the search planner's memory.
 */
export interface RegistryContext {
  store: Store;
  /** The instance's name (SERVICE_INSTANCE_NAME), for the health answer. */
  instance: string;
  nonceKey: Uint8Array;
  startedAtMs: number;
  now(): number;
  searchPlans: PlanMemory;
}

/** Builds the registry context over an open, migrated store. */
export async function openRegistry(store: Store, instance = ""): Promise<RegistryContext> {
  return {
    store,
    instance,
    nonceKey: nonceKeyFromHex(await store.nonces.keyHex()),
    startedAtMs: Date.now(),
    now: () => Date.now(),
    searchPlans: planMemory(),
  };
}
