/**
 * Rendered pages of the repository browser kept in memory, least recently used out first within a
 * byte budget (SERVICE_BROWSE_CACHE_BYTES). A key names the repository (its row id), the state of
 * its refs (ref_state.ts, read from its files on every request) and the page: a push, through any
 * instance, changes the state and so the key, and the old pages are never served again. Identical
 * requests arriving while a page is made share its making.
 */
import type { Rendered } from "./frame.tsx";
import { SizedCache } from "../../domain/browse/sized_cache.ts";

/** A page larger than this share of the budget is not kept. */
const LARGEST_SHARE = 8;

/** The cache of rendered pages. */
export class PageCache {
  #pages: SizedCache<Rendered>;
  #making = new Map<string, Promise<Rendered>>();

  constructor(readonly maxBytes: number) {
    this.#pages = new SizedCache(maxBytes, maxBytes / LARGEST_SHARE);
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#pages.bytes;
  }

  /** The page under `key`, made with `make` when not kept (only 200s not marked `partial`). */
  async get(key: string, make: () => Promise<Rendered>): Promise<Rendered> {
    if (this.maxBytes <= 0) return await make();
    const hit = this.#pages.get(key);
    if (hit) return hit;
    const running = this.#making.get(key);
    if (running) return await running;
    const made = make().then((page) => {
      if (page.status === 200 && !page.partial) {
        this.#pages.set(key, page, page.body.length + key.length);
      }
      return page;
    }).finally(() => this.#making.delete(key));
    this.#making.set(key, made);
    return await made;
  }
}
