/**
 * Rendered pages of the repository browser kept in memory, least recently used out first within a
 * byte budget (SERVICE_BROWSE_CACHE_BYTES). A key names the repository (its row id), the state of
 * its refs (ref_state.ts, read from its files on every request) and the page: a push, through any
 * instance, changes the state and so the key, and the old pages are never served again. Identical
 * requests arriving while a page is made share its making.
 */
import type { Rendered } from "./frame.tsx";

/** A page larger than this share of the budget is not kept. */
const LARGEST_SHARE = 8;

/** The cache of rendered pages. */
export class PageCache {
  #entries = new Map<string, Rendered>();
  #bytes = 0;
  #making = new Map<string, Promise<Rendered>>();

  constructor(readonly maxBytes: number) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The page under `key`, made with `make` when not kept (only 200s are kept). */
  async get(key: string, make: () => Promise<Rendered>): Promise<Rendered> {
    if (this.maxBytes <= 0) return await make();
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const running = this.#making.get(key);
    if (running) return await running;
    const made = make().then((page) => {
      this.#keep(key, page);
      return page;
    }).finally(() => this.#making.delete(key));
    this.#making.set(key, made);
    return await made;
  }

  #keep(key: string, page: Rendered): void {
    const size = page.body.length + key.length;
    if (page.status !== 200 || size > this.maxBytes / LARGEST_SHARE) return;
    this.#entries.set(key, page);
    this.#bytes += size;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.body.length + k.length;
    }
  }
}
