/**
 * Releasing the native contexts of ssh2's per-packet chacha20 ciphers.
 *
 * For chacha20-poly1305 (OpenSSH's first choice), ssh2 creates three `chacha20` ciphers for every
 * packet it sends and three for every packet it receives, uses each for one `update`, and never
 * calls `final`. Under Deno a `node:crypto` cipher holds a native context in the runtime's resource
 * table until `final` takes it out; the JavaScript object's collection does not. So every packet
 * left some 280 bytes of native memory behind for good: an SSH clone of a few MB about 100 KB, a
 * long-running server without end. Measured in docs/decisions/performance-and-bench.md ("SSH
 * packets no longer leak native cipher contexts").
 *
 * ssh2 takes `createCipheriv` and `createDecipheriv` from `node:crypto` once, as it loads; so while
 * ssh2 loads (and only then) those two functions are swapped for ones whose `chacha20` ciphers
 * finalize themselves after their first `update`, the one ssh2 makes.
 */
import crypto from "node:crypto";

/** `createCipheriv` or `createDecipheriv`, as ssh2 calls them. */
type CreateCipher = (
  algorithm: string,
  key: Uint8Array,
  iv: Uint8Array | null,
  options?: unknown,
) => { update(data: Uint8Array): Uint8Array; final(): Uint8Array };

/**
 * `create`, except that a `chacha20` cipher it makes finalizes itself (releasing its native context)
 * right after its first `update`, whose output it returns unchanged; a further `update` throws, as
 * on any finalized cipher. Other algorithms are returned as `create` made them. chacha20 is a stream
 * cipher: `final` has nothing left to emit.
 */
export function finalizingChacha20<C extends CreateCipher>(create: C): C {
  return ((algorithm, key, iv, options) => {
    const cipher = create(algorithm, key, iv, options);
    if (algorithm !== "chacha20") return cipher;
    const update = cipher.update;
    cipher.update = function (this: typeof cipher, data: Uint8Array) {
      const out = update.call(this, data);
      this.final();
      return out;
    };
    return cipher;
  }) as C;
}

/**
 * Runs `load` (the import of ssh2) with `node:crypto`'s `createCipheriv` and `createDecipheriv`
 * replaced by their `finalizingChacha20` forms, and puts the originals back once it settles: ssh2
 * keeps the forms it found as it loaded, every other caller gets the originals.
 */
export async function loadWithFinalizingChacha20<T>(load: () => Promise<T>): Promise<T> {
  const original = {
    createCipheriv: crypto.createCipheriv,
    createDecipheriv: crypto.createDecipheriv,
  };
  const patched = crypto as unknown as Record<keyof typeof original, unknown>;
  patched.createCipheriv = finalizingChacha20(original.createCipheriv as unknown as CreateCipher);
  patched.createDecipheriv = finalizingChacha20(
    original.createDecipheriv as unknown as CreateCipher,
  );
  try {
    return await load();
  } finally {
    patched.createCipheriv = original.createCipheriv;
    patched.createDecipheriv = original.createDecipheriv;
  }
}
