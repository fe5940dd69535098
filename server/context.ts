/** The shared state every transport and domain function receives. */
import type { Store } from "../db/store.ts";
import type { ServerConfig } from "./config.ts";
import type { RateLimiter } from "./ratelimit.ts";
import type { CloneCache } from "./domain/clone_cache.ts";

/** Storage plus resolved configuration; the admin key is always set once serving. */
export interface Signet {
  store: Store;
  config: ServerConfig & { adminKey: string };
  /**
   * The SSH port users should connect to, for clone URLs and messages: SERVICE_SSH_PUBLIC_PORT,
   * else the SSH bind's; null when SSH is off.
   */
  sshPort: number | null;
  /** Per-IP / per-user / per-bot request limits. */
  limiter: RateLimiter;
  /** The cache clone requests are answered from; absent when it is off. */
  cloneCache?: CloneCache;
  /**
   * True when `signet db copy` copied this data dir's embedded database to PostgreSQL (its note
   * was there at start; the copy runs only while no server does): the repositories on disk may
   * then belong to either database.
   */
  databaseCopied?: boolean;
}
