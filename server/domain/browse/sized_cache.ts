/**
 * Values kept in memory within a byte budget, least recently used dropped first: the repository
 * pages' cache (server/http/browse/page_cache.ts) and blame's results (blame.ts). A value may also
 * be kept only until a time.
 */
export class SizedCache<V> {
  #entries = new Map<string, { value: V; bytes: number; until: number }>();
  #bytes = 0;

  /** `maxBytes`: the budget; a value larger than `maxEntryBytes` is not kept at all. */
  constructor(readonly maxBytes: number, readonly maxEntryBytes = maxBytes) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The value under `key`, now the most recently used, unless there is none or it expired. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.until <= Date.now()) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` (`bytes` large) under `key`, until `until` (ms since the epoch) if given. */
  set(key: string, value: V, bytes: number, until = Infinity): void {
    if (bytes > this.maxEntryBytes || bytes > this.maxBytes) return;
    this.delete(key);
    this.#entries.set(key, { value, bytes, until });
    this.#bytes += bytes;
    for (const [old, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(old);
      this.#bytes -= entry.bytes;
    }
  }

  /** Drops the value under `key`, if any. */
  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
