/** In-memory token-bucket rate limits, one bucket per (rule, key). */
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

/** A set of token buckets; `enabled=false` (SERVICE_RATE_LIMITS=off) makes every check pass. */
export class RateLimiter {
  #buckets = new Map<string, Bucket>();
  constructor(
    readonly enabled: boolean,
    private readonly rules: Record<RateRuleName, RateRule> = RATE_RULES,
  ) {}

  /** Takes one token for `key` under `rule`; throws RateLimitError when none is left. */
  take(rule: RateRuleName, key: string, now = Date.now()): void {
    if (!this.enabled) return;
    const { burst, perMinute } = this.rules[rule];
    const id = `${rule}\u0000${key}`;
    const b = this.#buckets.get(id) ?? { tokens: burst, updated: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.updated) / 60_000) * perMinute);
    b.updated = now;
    if (b.tokens < 1) {
      this.#buckets.set(id, b);
      throw new RateLimitError(Math.max(1, Math.ceil(((1 - b.tokens) / perMinute) * 60)));
    }
    b.tokens -= 1;
    this.#buckets.set(id, b);
  }

  /** Forgets full buckets so memory stays bounded; call periodically. */
  sweep(now = Date.now()): void {
    for (const [id, b] of this.#buckets) {
      const rule = this.rules[id.slice(0, id.indexOf("\u0000")) as RateRuleName];
      if (b.tokens + ((now - b.updated) / 60_000) * rule.perMinute >= rule.burst) {
        this.#buckets.delete(id);
      }
    }
  }
}
