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

/**
 * Polls `read` every 50 ms until `done` holds for its value or `ms` pass; returns the last value
 * read (the caller asserts on it). For effects that follow an answer, like a push's bookkeeping.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}
