/** Writing to an SSH channel with backpressure, and ending it with an exit status. */
import type { ServerChannel } from "./ssh2.ts";

const encoder = new TextEncoder();

/**
 * One session channel as commands see it: text and byte output on stdout/stderr that waits for
 * the client's window, and `finish(code)` which sends the exit status only after all output.
 */
export class ChannelIO {
  /** Resolves when the client closed the channel (or the connection went away). */
  readonly closed: Promise<void>;
  #isClosed = false;

  /**
   * `pty`: the client asked for a terminal, so text output needs CRLF line ends.
   * `connectionClosed` resolves when the whole SSH connection is gone.
   */
  constructor(
    readonly channel: ServerChannel,
    readonly pty: boolean,
    connectionClosed: Promise<void>,
    rttMs: number | null = null,
  ) {
    this.#pacer = ConsumptionPacer.attach(channel, rttMs);
    this.closed = new Promise((resolve) => {
      const done = () => {
        this.#isClosed = true;
        resolve();
      };
      channel.once("close", done);
      channel.once("error", done);
      connectionClosed.then(done);
    });
  }

  /** Reads and drops everything the client sends (for commands that take no input). */
  discardInput(): void {
    this.channel.resume();
  }

  /** True once the channel can no longer carry output. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  #pacer: ConsumptionPacer | null;

  /** Writes bytes to stdout (or stderr); resolves false when the channel closed first. */
  async write(chunk: Uint8Array, stream: "stdout" | "stderr" = "stdout"): Promise<boolean> {
    if (this.#isClosed) return false;
    if (this.#pacer && stream === "stdout") {
      const open = await Promise.race([this.#pacer.ready(), this.closed.then(() => false)]);
      if (!open) return false;
    }
    const target = stream === "stdout" ? this.channel : this.channel.stderr;
    const written = new Promise<boolean>((resolve) => {
      target.write(chunk, (err?: Error | null) => resolve(!err));
    });
    return Promise.race([written, this.closed.then(() => false)]);
  }

  /** Writes text to stdout, translating `\n` to `\r\n` on a terminal. */
  out(text: string): Promise<boolean> {
    return this.write(encoder.encode(this.#lineEnds(text)), "stdout");
  }

  /** Writes text to stderr, translating `\n` to `\r\n` on a terminal. */
  err(text: string): Promise<boolean> {
    return this.write(encoder.encode(this.#lineEnds(text)), "stderr");
  }

  /** Sends the exit status and closes the channel; call after every write has resolved. */
  finish(code: number): void {
    if (this.#isClosed) return;
    this.channel.exit(code);
    this.channel.end();
  }

  #lineEnds(text: string): string {
    return this.pty ? text.replace(/\r?\n/g, "\r\n") : text;
  }
}

/** Unconsumed bytes allowed on a link with no delay to speak of (loopback, LAN). */
export const PACE_BASE_BYTES = 256 * 1024;
/** Round-trip time from which the whole window is allowed, as without pacing. */
export const PACE_FULL_WINDOW_RTT_MS = 50;

/**
 * How many bytes the client may hold unconsumed: PACE_BASE_BYTES plus a share of its window that
 * grows with the round-trip time (the bytes in flight a distant client needs to keep its link
 * busy), the whole window from PACE_FULL_WINDOW_RTT_MS, or when the time is unknown.
 */
export function paceLimit(windowBytes: number, rttMs: number | null): number {
  if (rttMs === null || rttMs >= PACE_FULL_WINDOW_RTT_MS) return windowBytes;
  const share = windowBytes * Math.max(0, rttMs) / PACE_FULL_WINDOW_RTT_MS;
  return Math.min(windowBytes, PACE_BASE_BYTES + share);
}

/**
 * Keeps the data the client has received but not yet consumed near what it needs, instead of the
 * whole SSH window. OpenSSH's client reads everything the server sends into its own buffers and
 * returns window only as it writes the data on (to git); a fast server filling its 2 MiB window
 * left the client growing and freeing megabyte buffers (~7,000 page faults per 1.65 MB clone on
 * this machine's VM, against ~1,000 when paced). The limit comes from the round-trip time
 * (paceLimit) and doubles whenever the client drained nearly all of it while the writer waited.
 * It follows ssh2's `outgoing.window`, which ssh2 lowers as it sends and raises on each window
 * adjustment.
 */
export class ConsumptionPacer {
  #window: number;
  #initial: number;
  #limit: number;
  #waiting: (() => void)[] = [];

  private constructor(outgoing: { window: number }, rttMs: number | null) {
    this.#window = outgoing.window;
    this.#initial = outgoing.window;
    this.#limit = paceLimit(outgoing.window, rttMs);
    Object.defineProperty(outgoing, "window", {
      get: () => this.#window,
      set: (v: number) => {
        const grew = v > this.#window;
        this.#window = v;
        if (grew && this.#waiting.length) this.#wake();
      },
    });
  }

  /**
   * A pacer following `channel`'s window (call before anything was sent on it), or null when the
   * channel does not carry one (not an ssh2 channel).
   */
  static attach(channel: unknown, rttMs: number | null): ConsumptionPacer | null {
    const outgoing = (channel as { outgoing?: { window?: unknown } }).outgoing;
    if (!outgoing || typeof outgoing.window !== "number") return null;
    return new ConsumptionPacer(outgoing as { window: number }, rttMs);
  }

  /** Bytes the client may hold unconsumed now. */
  get limit(): number {
    return this.#limit;
  }

  /** Resolves once the client holds less than the limit unconsumed. */
  ready(): Promise<true> {
    if (this.#initial - this.#window < this.#limit) return Promise.resolve(true);
    return new Promise((resolve) => this.#waiting.push(() => resolve(true)));
  }

  #wake(): void {
    const unconsumed = this.#initial - this.#window;
    if (unconsumed >= this.#limit) return;
    // Drained nearly all while the writer waited: the link, not the client, held it back.
    if (unconsumed < this.#limit / 4) this.#limit = Math.min(this.#limit * 2, this.#initial);
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const go of waiting) go();
  }
}
