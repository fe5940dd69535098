/** Search planning both engines share: which part of a query to probe the trigram index with. */

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
