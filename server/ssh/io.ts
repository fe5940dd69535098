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
  ) {
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

  /** Writes bytes to stdout (or stderr); resolves false when the channel closed first. */
  write(chunk: Uint8Array, stream: "stdout" | "stderr" = "stdout"): Promise<boolean> {
    if (this.#isClosed) return Promise.resolve(false);
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
