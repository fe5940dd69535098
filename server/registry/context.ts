/** What the registry's domain functions receive. */
import type { Database } from "../../db/database.ts";
import { nonceKeyHex } from "../../db/registry_nonces.ts";
import type { TermSet } from "../../db/registry_bots.ts";
import { BroadTerms } from "./search.ts";

/**
 * The registry's state: the shared database, its nonce MAC key, a clock, when it started, and the
 * search planner's memory of broad terms.
 */
export interface RegistryContext {
  db: Database;
  nonceKey: string;
  startedAtMs: number;
  now(): number;
  broadTerms: TermSet;
}

/** Builds the registry context over an open, migrated database. */
export function registryContext(db: Database): RegistryContext {
  return {
    db,
    nonceKey: nonceKeyHex(db),
    startedAtMs: Date.now(),
    now: () => Date.now(),
    broadTerms: new BroadTerms(),
  };
}
