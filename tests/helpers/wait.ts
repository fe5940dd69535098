/** Waiting in tests without leaving timers behind. */

/**
 * True when `promise` resolves within `ms`, false when the time runs out first (the timer is
 * cleared either way); a rejection is passed on.
 */
export async function resolvesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}
