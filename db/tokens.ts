/** The bearer tokens store: only SHA-256 hashes are kept. Times are ISO 8601 UTC strings. */

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
  /** The token with this hash, expired or not. */
  findByHash(tokenHash: string): Promise<TokenRow | undefined>;
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
