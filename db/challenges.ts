/** The login challenges store. */

/** A stored login challenge. */
export interface ChallengeRow {
  id: number;
  username: string;
  nonce: string;
  created_at: string;
  created_ms: number;
}

/** Login challenges (nonces a user signs to log in). */
export interface ChallengeStore {
  /** Stores a challenge for `username` issued at `nowMs`. */
  insert(username: string, nonce: string, nowMs: number): Promise<void>;
  /** The challenge of `username` with `nonce`, if any. */
  find(username: string, nonce: string): Promise<ChallengeRow | undefined>;
  /**
   * Deletes one challenge; true when it still existed. Of concurrent deletes of one challenge,
   * exactly one gets true (this is what makes a challenge single-use).
   */
  delete(id: number): Promise<boolean>;
  /** Deletes the challenges of `username` created before `cutoffMs`. */
  deleteExpiredOf(username: string, cutoffMs: number): Promise<void>;
  /** Deletes every challenge created before `cutoffMs`; returns how many went. */
  deleteExpired(cutoffMs: number): Promise<number>;
}
