/**
 * Figures computed from the whole registry (its statistics, a search's counts) kept while the
 * audit log's head stays where it was, for at most a few seconds: every accepted write appends to
 * the log, on whichever instance took it, so a new head means the figures may have changed. At
 * 100,000 bots the figures cost several milliseconds of counting; the head is one index lookup.
 * The time limit bounds what a write outside the log (a restore, a seeded database) leaves stale.
 */
import type { Store } from "../../db/store.ts";
import { Memo } from "./search.ts";

/** How long a figure is kept at most, ms. */
export const HEAD_CACHE_TTL_MS = 10_000;

/** Cached figures of one registry, by key. */
export class HeadCache {
  readonly #memo = new Memo<{ seq: number; value: unknown }>(1000, HEAD_CACHE_TTL_MS);

  /** The value of `key` computed at the current log head (computed now if not kept). */
  async get<V>(store: Store, key: string, compute: () => Promise<V>): Promise<V> {
    const seq = (await store.log.head())?.seq ?? 0;
    const kept = this.#memo.get(key);
    if (kept && kept.seq === seq) return kept.value as V;
    const value = await compute();
    this.#memo.set(key, { seq, value });
    return value;
  }
}

const caches = new WeakMap<object, HeadCache>();

/** The cache of the registry context `rc`. */
export function headCache(rc: object): HeadCache {
  let cache = caches.get(rc);
  if (!cache) caches.set(rc, cache = new HeadCache());
  return cache;
}
