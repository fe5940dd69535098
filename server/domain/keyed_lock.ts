/** An in-process mutex per key: work under the same key runs one at a time, in arrival order. */
export class KeyedLock {
  #tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` once every earlier holder of `key` has finished. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const mine = prev.catch(() => {}).then(fn);
    const tail = mine.catch(() => {});
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
