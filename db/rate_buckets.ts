/**
 * Token buckets shared by every instance on one database: the rate limits (server/ratelimit.ts)
 * on PostgreSQL. The embedded SQLite database has one process, which keeps its buckets in memory.
 */

/** What one take did. */
export interface BucketTake {
  /** Whether a token was taken. */
  granted: boolean;
  /** The tokens left in the bucket after the take (below 1 when refused). */
  tokens: number;
}

/** Token buckets by id. */
export interface RateBucketStore {
  /**
   * Takes one token from bucket `id` (at most `burst` tokens, refilled at `perMinute` per minute,
   * full when new) at `nowMs`. One atomic statement: of concurrent takes from any instance, each
   * sees the others' (no token is taken twice).
   */
  take(id: string, burst: number, perMinute: number, nowMs: number): Promise<BucketTake>;
  /** Deletes the buckets that are full again at `nowMs` (a new one would be the same); returns how many. */
  prune(nowMs: number): Promise<number>;
}
