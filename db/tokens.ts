/** Data access for bearer tokens, stored only as SHA-256 hashes. Times are ISO 8601 UTC strings. */
import type { Database } from "./database.ts";

/** A stored token: never the secret, only its hash (not returned here). */
export interface TokenRow {
  id: number;
  user_id: number;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}

const COLUMNS = "id, user_id, created_at, expires_at, last_used_at";

/** Stores the hash of a freshly issued token; returns its id. */
export function insertToken(
  db: Database,
  tokenHash: string,
  userId: number,
  createdAt: string,
  expiresAt: string,
): number {
  const res = db.prepare(
    "INSERT INTO tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
  ).run(tokenHash, userId, createdAt, expiresAt);
  return Number(res.lastInsertRowid);
}

/** The token with this hash, expired or not; undefined when there is none. */
export function findTokenByHash(db: Database, tokenHash: string): TokenRow | undefined {
  return db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE token_hash = ?`).get(tokenHash) as
    | TokenRow
    | undefined;
}

/** The token with this id, expired or not. */
export function findTokenById(db: Database, id: number): TokenRow | undefined {
  return db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`).get(id) as TokenRow | undefined;
}

/** Records that token `id` was used at `at`. */
export function touchToken(db: Database, id: number, at: string): void {
  db.prepare("UPDATE tokens SET last_used_at = ? WHERE id = ?").run(at, id);
}

/** The tokens of `userId` that have not expired at `now`, oldest first. */
export function listLiveTokensOf(db: Database, userId: number, now: string): TokenRow[] {
  return db.prepare(
    `SELECT ${COLUMNS} FROM tokens WHERE user_id = ? AND expires_at > ? ORDER BY id`,
  ).all(userId, now) as unknown as TokenRow[];
}

/** Deletes token `id`; returns whether it existed. */
export function deleteToken(db: Database, id: number): boolean {
  return Number(db.prepare("DELETE FROM tokens WHERE id = ?").run(id).changes) === 1;
}

/** Deletes the tokens of `userId` that expired at or before `now`. */
export function deleteExpiredTokensOf(db: Database, userId: number, now: string): void {
  db.prepare("DELETE FROM tokens WHERE user_id = ? AND expires_at <= ?").run(userId, now);
}

/** Deletes every token that expired at or before `now`; returns how many. */
export function deleteExpiredTokens(db: Database, now: string): number {
  return Number(db.prepare("DELETE FROM tokens WHERE expires_at <= ?").run(now).changes);
}
