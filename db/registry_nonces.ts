/** Data access for the registry's anti-replay state: used nonces and the nonce MAC key. */
import type { Database } from "./database.ts";

/** The hex MAC key nonces are issued under (created by migration 2). */
export function nonceKeyHex(db: Database): string {
  return (db.prepare("SELECT value FROM registry_meta WHERE name = 'nonce_key'").get() as {
    value: string;
  }).value;
}

/** Records `nonce` as used until `expiresMs`; returns false when it already was. */
export function markNonceUsed(db: Database, nonce: string, expiresMs: number): boolean {
  const r = db.prepare(
    "INSERT INTO registry_used_nonces (nonce, expires_ms) VALUES (?, ?) ON CONFLICT DO NOTHING",
  ).run(nonce, expiresMs);
  return Number(r.changes) === 1;
}

/** Forgets used nonces whose lifetime ended before `nowMs` (they can no longer be replayed); returns how many. */
export function purgeUsedNonces(db: Database, nowMs: number): number {
  return Number(
    db.prepare("DELETE FROM registry_used_nonces WHERE expires_ms < ?").run(nowMs).changes,
  );
}
