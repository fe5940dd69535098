/** The idle timeout of an authenticated connection, which never fires while a command runs. */

/**
 * Calls `onIdle` once `ms` pass with no input and no running command (never when `ms` is 0).
 * Commands hold the timer for their whole run, so a long transfer (or git thinking silently) is
 * never cut off.
 */
export class ActivityTimer {
  #busy = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(readonly ms: number, readonly onIdle: () => void) {
    this.touch();
  }

  /** Number of commands running now. */
  get busy(): number {
    return this.#busy;
  }

  /** Records activity: the idle countdown starts over. */
  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#stopped || this.#busy > 0 || this.ms <= 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped && this.#busy === 0) this.onIdle();
    }, this.ms);
  }

  /** Suspends the countdown until the returned function is called (once). */
  hold(): () => void {
    this.#busy++;
    this.touch();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy--;
      this.touch();
    };
  }

  /** Cancels the countdown for good (the connection is gone). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
