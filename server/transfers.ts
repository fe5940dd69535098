/** Tracks running git transfers on every transport so shutdown can let them finish. */

const running = new Set<Promise<unknown>>();

/** Registers a transfer; it is forgotten when `done` settles. */
export function trackTransfer(done: Promise<unknown>): void {
  const p = done.finally(() => running.delete(p));
  running.add(p);
}

/** How many transfers are running now. */
export function activeTransfers(): number {
  return running.size;
}

/** Waits until no transfer runs or `deadlineMs` passes; returns how many were still running. */
export async function drainTransfers(deadlineMs: number): Promise<number> {
  const end = Date.now() + deadlineMs;
  while (running.size > 0 && Date.now() < end) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...running]),
      new Promise((r) => (timer = setTimeout(r, Math.max(0, end - Date.now())))),
    ]);
    clearTimeout(timer);
  }
  return running.size;
}
