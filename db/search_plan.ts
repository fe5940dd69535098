/**
 * Search planning both engines share: which part of a query to probe the trigram index with, and
 * when the planner's remembered hints no longer fit the registry.
 */
import type { PlanMemory } from "./registry_bots.ts";

/**
 * The window of `q` around its rarest trigram: `counts[i]` is how many bots hold the trigram at
 * `q[i..i+3]`; neighbours at most a few times as common join it, up to 4 trigrams (6 characters).
 * E.g. `seed-01234` probes `01234` instead of also walking `see`, `eed`, … which every seeded bot
 * has. Only a plan hint: the caller checks the whole of `q` on what the probe finds.
 */
export function rarestWindow(q: string, counts: readonly number[]): string {
  const min = Math.min(...counts);
  let lo = counts.indexOf(min);
  let hi = lo;
  const near = (n: number | undefined) => n !== undefined && n <= 4 * min + 100;
  while (hi - lo < 3) {
    const left = counts[lo - 1];
    const right = counts[hi + 1];
    if (near(left) && (!near(right) || left <= right)) lo--;
    else if (near(right)) hi++;
    else break;
  }
  return q.slice(lo, hi + 3);
}

/** How often a planner looks at the registry's size (ms). */
export const SIZE_CHECK_MS = 5_000;

/**
 * Whether `memory`'s size is due for a look at `now`; call `followRegistrySize` with what it found.
 */
export function sizeCheckDue(memory: PlanMemory, now = Date.now()): boolean {
  return !memory.size || now - memory.size.checkedAt >= SIZE_CHECK_MS;
}

/**
 * Records the registry's size (`rows`, any measure that grows with it) in `memory`; drops the
 * hints when it is more than 1.5 times, or less than two thirds of, the size they were taken at.
 */
export function followRegistrySize(memory: PlanMemory, rows: number, now = Date.now()): void {
  const taken = memory.size?.rows ?? rows;
  const moved = rows > taken * 1.5 || rows * 1.5 < taken;
  if (moved) {
    memory.broad.clear();
    memory.trigramDocs.clear();
  }
  memory.size = { rows: moved ? rows : taken, checkedAt: now };
}
