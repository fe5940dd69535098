/** Data access for bearer tokens, stored only as SHA-256 hashes. */
import type { Database } from "./database.ts";

/** Stores the hash of a freshly issued token. */
export function insertToken(db: Database, tokenHash: string, userId: number): void {
  db.prepare("INSERT INTO tokens (token_hash, user_id, created_at) VALUES (?, ?, ?)")
    .run(tokenHash, userId, new Date().toISOString());
}

/** Returns the user id owning the token with this hash, if any. */
export function findTokenUser(db: Database, tokenHash: string): number | undefined {
  const row = db.prepare("SELECT user_id FROM tokens WHERE token_hash = ?").get(tokenHash) as
    | { user_id: number }
    | undefined;
  return row?.user_id;
}
