/**
 * Token-bucket rate limits, one bucket per (rule, key): in memory on the embedded SQLite database
 * (one process), in the database's `rate_buckets` table on PostgreSQL, so that every instance
 * sharing it counts against the same buckets.
 */
import type { RateBucketStore } from "../db/rate_buckets.ts";
import { DomainError } from "../protocol/errors.ts";

/** A limit: `burst` requests at once, refilled at `perMinute` per minute. */
export interface RateRule {
  burst: number;
  perMinute: number;
}

/** The named limits and their defaults; SERVICE_RATE_LIMIT_<NAME>=burst/perMinute overrides one (server/config.ts). */
export const RATE_RULES = {
  login_ip: { burst: 30, perMinute: 30 },
  login_user: { burst: 10, perMinute: 10 },
  signup_ip: { burst: 10, perMinute: 5 },
  registry_write_ip: { burst: 60, perMinute: 60 },
  registry_write_bot: { burst: 20, perMinute: 20 },
  nonce_ip: { burst: 120, perMinute: 120 },
  ssh_auth_fail_ip: { burst: 20, perMinute: 10 },
} satisfies Record<string, RateRule>;

/** Names of the configured limits. */
export type RateRuleName = keyof typeof RATE_RULES;

/** Raised when a bucket is empty; carries the seconds until one token is back. */
export class RateLimitError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super("rate_limited", `too many requests; retry in ${retryAfterSeconds} s`);
  }
}

interface Bucket {
  tokens: number;
  updated: number;
}

/** The seconds until a bucket holding `tokens` (< 1) has one again. */
function retryAfter(tokens: number, perMinute: number): number {
  return Math.max(1, Math.ceil(((1 - tokens) / perMinute) * 60));
}

/** Bucket ids of keys longer than this are hashed (a database key stays small). */
const MAX_SHARED_KEY = 200;

/**
 * The shared bucket id of (`rule`, `key`): `rule` and the key as a JSON string, which holds no
 * U+0000 (PostgreSQL text cannot) and keeps distinct keys distinct; a long key by its SHA-256.
 */
async function sharedId(rule: RateRuleName, key: string): Promise<string> {
  if (key.length <= MAX_SHARED_KEY) return `${rule} ${JSON.stringify(key)}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${rule} sha256:${hex}`;
}

/**
 * A set of token buckets; `enabled=false` (SERVICE_RATE_LIMITS=off) makes every check pass. With
 * `shared` (the database's buckets, on PostgreSQL) every instance on the database counts together;
 * without, the buckets live in this process's memory.
 */
export class RateLimiter {
  #buckets = new Map<string, Bucket>();
  constructor(
    readonly enabled: boolean,
    private readonly rules: Record<RateRuleName, RateRule> = RATE_RULES,
    private readonly shared: RateBucketStore | null = null,
  ) {}

  /**
   * Takes one token for `key` under `rule`; rejects with RateLimitError when none is left (and
   * with the database's DomainError("unavailable") when shared buckets cannot be reached).
   */
  async take(rule: RateRuleName, key: string, now = Date.now()): Promise<void> {
    if (!this.enabled) return;
    const { burst, perMinute } = this.rules[rule];
    if (this.shared) {
      const taken = await this.shared.take(await sharedId(rule, key), burst, perMinute, now);
      if (!taken.granted) throw new RateLimitError(retryAfter(taken.tokens, perMinute));
      return;
    }
    const id = `${rule}\u0000${key}`;
    const b = this.#buckets.get(id) ?? { tokens: burst, updated: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.updated) / 60_000) * perMinute);
    b.updated = now;
    if (b.tokens < 1) {
      this.#buckets.set(id, b);
      throw new RateLimitError(retryAfter(b.tokens, perMinute));
    }
    b.tokens -= 1;
    this.#buckets.set(id, b);
  }

  /**
   * Forgets full buckets so memory (or the shared table) stays bounded; call periodically.
   * Returns how many database rows it deleted (0 for buckets in memory).
   */
  async sweep(now = Date.now()): Promise<number> {
    if (this.shared) return await this.shared.prune(now);
    for (const [id, b] of this.#buckets) {
      const rule = this.rules[id.slice(0, id.indexOf("\u0000")) as RateRuleName];
      if (b.tokens + ((now - b.updated) / 60_000) * rule.perMinute >= rule.burst) {
        this.#buckets.delete(id);
      }
    }
    return 0;
  }
}
