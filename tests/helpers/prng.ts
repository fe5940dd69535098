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

/**
 * Sends `total` fuzz requests from `concurrency` workers at once; `sendOne` sends one request and
 * answers its status. Returns how often each status came back and how long it all took.
 */
export async function fuzzRequests(
  total: number,
  concurrency: number,
  sendOne: () => Promise<number>,
): Promise<{ statuses: Map<number, number>; seconds: number }> {
  const statuses = new Map<number, number>();
  const started = performance.now();
  let sent = 0;
  const worker = async () => {
    while (sent < total) {
      sent++;
      const status = await sendOne();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses, seconds: (performance.now() - started) / 1000 };
}

/** Random helpers over the seed FUZZ_SEED names (to replay a failure) or a fresh one, and the seed. */
export function fuzzSeed(): Rand & { seed: number } {
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? Date.now() % 1_000_000);
  return { seed, ...prng(seed) };
}
