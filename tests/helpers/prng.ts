/** A seeded PRNG (mulberry32), so a fuzz failure is reproducible from its printed seed. */

/** Random helpers drawn from one seed. */
export interface Rand {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One element of `xs`. */
  pick<T>(xs: readonly T[]): T;
}

/** Random helpers over mulberry32 seeded with `seed`. */
export function prng(seed: number): Rand {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)] };
}
