/** What the registry's domain functions receive. */
import type { Database } from "../../db/database.ts";
import { nonceKeyHex } from "../../db/registry_nonces.ts";

/** The registry's state: the shared database, its nonce MAC key, a clock, and when it started. */
export interface RegistryContext {
  db: Database;
  nonceKey: string;
  startedAtMs: number;
  now(): number;
}

/** Builds the registry context over an open, migrated database. */
export function registryContext(db: Database): RegistryContext {
  return { db, nonceKey: nonceKeyHex(db), startedAtMs: Date.now(), now: () => Date.now() };
}
