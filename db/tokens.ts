/** The bearer tokens store: only SHA-256 hashes are kept. Times are ISO 8601 UTC strings. */
import type { UserRow } from "./users.ts";

/** A stored token: never the secret, nor its hash. */
export interface TokenRow {
  id: number;
  user_id: number;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}

/** Bearer tokens. */
export interface TokenStore {
  /** Stores the hash of a freshly issued token; returns its id. */
  insert(tokenHash: string, userId: number, createdAt: string, expiresAt: string): Promise<number>;
  /**
   * The token with this hash, expired or not, and its user, read together (one statement: a
   * request's authentication is one round trip on a database server).
   */
  findWithUser(tokenHash: string): Promise<{ token: TokenRow; user: UserRow } | undefined>;
  /** The token with this id, expired or not. */
  findById(id: number): Promise<TokenRow | undefined>;
  /** Records that token `id` was used at `at`. */
  touch(id: number, at: string): Promise<void>;
  /** The tokens of `userId` that have not expired at `now`, oldest first. */
  listLiveOf(userId: number, now: string): Promise<TokenRow[]>;
  /** Deletes token `id`; true when it existed. */
  delete(id: number): Promise<boolean>;
  /** Deletes the tokens of `userId` that expired at or before `now`. */
  deleteExpiredOf(userId: number, now: string): Promise<void>;
  /** Deletes every token that expired at or before `now`; returns how many. */
  deleteExpired(now: string): Promise<number>;
}

/**
 * The statement of `findWithUser` with `param` as the hash's placeholder: the token's columns and
 * its user's, prefixed `u_` (see `splitTokenAndUser`).
 */
export function tokenWithUserSql(param: string): string {
  return `SELECT t.id, t.user_id, t.created_at, t.expires_at, t.last_used_at,
  u.username AS u_username, u.public_key AS u_public_key, u.created_at AS u_created_at
  FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ${param}`;
}

/** Splits a `tokenWithUserSql` row into the token and its user. */
export function splitTokenAndUser(
  row: Record<string, unknown>,
): { token: TokenRow; user: UserRow } {
  const token = {
    id: Number(row.id),
    user_id: Number(row.user_id),
    created_at: row.created_at as string,
    expires_at: row.expires_at as string,
    last_used_at: row.last_used_at as string | null,
  };
  const user = {
    id: token.user_id,
    username: row.u_username as string,
    public_key: row.u_public_key as string,
    created_at: row.u_created_at as string,
  };
  return { token, user };
}
