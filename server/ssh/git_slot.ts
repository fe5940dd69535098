/**
 * The git slot of one SSH git session, held only while git has work. An SSH session's git runs
 * as long as the client keeps the session open, and most of that time it may wait for the client:
 * after its ref advertisement, between the requests of a protocol v2 session, while the client
 * computes a pack. A session that held its slot throughout let silent sessions hold every slot
 * (issue 22), so the slot is given back whenever git waits for the client, and taken again (the
 * client's bytes held back meanwhile) before the next bytes reach git.
 */
import type { GitSlots } from "../domain/git.ts";

/**
 * A session silent both ways this long gives its slot back: git is waiting for the client. git
 * sends a keepalive every 5 s while it works without output (uploadpack.keepAlive,
 * receive.keepAlive), so a working git is never silent that long.
 */
export const PARK_AFTER_MS = 10_000;

/** Options of a SessionSlot. */
export interface SessionSlotOptions {
  /** Silence after which the slot is given back. */
  parkAfterMs?: number;
  /** Silence after which `onIdle` is called once (0: never). */
  idleTimeoutMs: number;
  onIdle: () => void;
}

/** Takes and gives back one session's git slot; tracks the session's silence. */
export class SessionSlot {
  #release: (() => void) | null = null;
  #taking: Promise<void> | null = null;
  #last = performance.now();
  #stopped = false;
  #timer: ReturnType<typeof setInterval>;
  readonly #parkAfterMs: number;

  constructor(
    readonly slots: GitSlots,
    readonly keys: readonly string[],
    readonly opts: SessionSlotOptions,
  ) {
    this.#parkAfterMs = opts.parkAfterMs ?? PARK_AFTER_MS;
    const shortest = Math.min(this.#parkAfterMs, opts.idleTimeoutMs || Infinity);
    this.#timer = setInterval(() => this.#check(), Math.max(50, Math.min(1000, shortest / 4)));
  }

  /** True while the session holds a slot. */
  get held(): boolean {
    return this.#release !== null;
  }

  /** Takes a slot unless the session holds one; resolves once it does (or was stopped). */
  take(): Promise<void> {
    if (this.#release || this.#stopped) return Promise.resolve();
    this.#taking ??= this.slots.acquire(this.keys).then((release) => {
      this.#taking = null;
      if (this.#stopped) return release();
      this.#release = release;
      this.activity(); // the wait was the server's, not the client's silence
    });
    return this.#taking;
  }

  /** Gives the slot back (git waits for the client); the next `take` queues again. */
  park(): void {
    this.#release?.();
    this.#release = null;
  }

  /** A byte moved, either way. */
  activity(): void {
    this.#last = performance.now();
  }

  /** The session is over: gives the slot back for good. */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.park();
  }

  #check(): void {
    if (this.#stopped || this.#taking) return;
    const silent = performance.now() - this.#last;
    if (silent >= this.#parkAfterMs) this.park();
    if (this.opts.idleTimeoutMs > 0 && silent >= this.opts.idleTimeoutMs) {
      this.stop();
      this.opts.onIdle();
    }
  }
}

/**
 * Follows the pkt-lines at the start of git's output until the first flush-pkt, which ends a ref
 * or capability advertisement; `push` is true once it has gone by. Gives up (false for good) on
 * anything that is not a pkt-line.
 */
export class AdvertisementEnd {
  #header = "";
  #skip = 0;
  #state: "scanning" | "ended" | "lost" = "scanning";

  /** Feeds a chunk of output; true once the advertisement's flush-pkt was in it or before. */
  push(chunk: Uint8Array): boolean {
    let pos = 0;
    while (this.#state === "scanning" && pos < chunk.length) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, chunk.length - pos);
        this.#skip -= n;
        pos += n;
        continue;
      }
      this.#header += String.fromCharCode(chunk[pos++]);
      if (this.#header.length < 4) continue;
      const len = /^[0-9a-f]{4}$/.test(this.#header) ? parseInt(this.#header, 16) : -1;
      this.#header = "";
      if (len === 0) this.#state = "ended";
      else if (len >= 4) this.#skip = len - 4;
      else if (len !== 1 && len !== 2) this.#state = "lost"; // delim and response-end: no payload
    }
    return this.#state === "ended";
  }
}
