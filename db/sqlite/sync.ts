/**
 * SQLite answers synchronously; the store interface is async. Each SQLite resource implements the
 * synchronous twin of its interface (`Sync<…>`), and `promised` turns it into the interface.
 */

/** The synchronous twin of an async interface: every method returns its value directly. */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R
    : never;
};

/** A class of a synchronous resource, with the names of its methods that write. */
export interface SyncResource<T> {
  new (db: import("./database.ts").Database): Sync<T>;
  readonly WRITES: readonly string[];
}

/**
 * The async interface over `impl`: each method's result (or error) as a settled promise. When
 * `write` is given, the methods named in `writes` run through it instead (in a transaction).
 */
export function promised<T>(
  impl: Sync<T>,
  write?: { writes: readonly string[]; run: (call: (tx: Sync<T>) => unknown) => Promise<unknown> },
): T {
  const out: Record<string, unknown> = {};
  const source = impl as Record<string, (...args: unknown[]) => unknown>;
  for (const name of methodNames(impl)) {
    if (write?.writes.includes(name)) {
      out[name] = (...args: unknown[]) =>
        write.run((tx) => (tx as Record<string, (...a: unknown[]) => unknown>)[name](...args));
      continue;
    }
    out[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve(source[name](...args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
  }
  return out as T;
}

function methodNames(impl: object): string[] {
  return Object.getOwnPropertyNames(Object.getPrototypeOf(impl))
    .filter((n) =>
      n !== "constructor" && typeof (impl as Record<string, unknown>)[n] === "function"
    );
}
