/** Reading typed lines from an SSH channel, with or without a pty. */
import type { ChannelIO } from "./io.ts";

/** Longest line kept; further characters are ignored. */
export const MAX_LINE_LENGTH = 256;

/** Why reading stopped: Ctrl-C, Ctrl-D, or the client closed its input. */
export type AbortReason = "interrupt" | "eof";

const BACKSPACE = 0x08;
const DELETE = 0x7f;
const CTRL_C = 0x03;
const CTRL_D = 0x04;
const CTRL_U = 0x15;
const ESC = 0x1b;

/**
 * Turns the bytes a client sends into lines. On a pty it does what a terminal's line discipline
 * would: echoes printable characters, erases on backspace or Ctrl-U, ends lines on Enter, and
 * treats Ctrl-C / Ctrl-D as abort. Escape sequences (arrow keys) and non-ASCII bytes are ignored.
 * Without a pty (`ssh -T` with piped input) lines end at `\n` and nothing is echoed.
 */
export class LineReader {
  #lines: string[] = [];
  #current = "";
  #afterCR = false;
  #escape: "none" | "esc" | "csi" = "none";
  #ended = false;
  #aborted: AbortReason | null = null;
  #wake: (() => void) | undefined;

  /** `onInput` is called on every chunk received (e.g. to reset an idle timer). */
  constructor(readonly io: ChannelIO, onInput: () => void = () => {}) {
    io.channel.on("data", (chunk: Uint8Array) => {
      onInput();
      this.#feed(chunk);
    });
    // Piped input may lack a final newline: its last line still counts. A terminal's half-typed
    // line, or anything when the connection dropped, does not.
    io.channel.on("end", () => this.#end(!io.pty));
    io.closed.then(() => this.#end(false));
  }

  /** Why input stopped, once readLine returned null. */
  get abortReason(): AbortReason | null {
    return this.#aborted ?? (this.#ended ? "eof" : null);
  }

  /** The next line (without its line end), or null when the person aborted or input ended. */
  async readLine(): Promise<string | null> {
    while (true) {
      if (this.#aborted) return null;
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #feed(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (this.#aborted) return;
      const afterCR = this.#afterCR;
      this.#afterCR = false;
      if (this.#escape !== "none") {
        this.#skipEscape(byte);
        continue;
      }
      if (byte === ESC) this.#escape = "esc";
      else if (byte === CTRL_C) this.#abort("interrupt", "^C\n");
      else if (byte === CTRL_D) this.#abort("eof", "\n");
      else if (byte === 0x0d) {
        this.#submit();
        this.#afterCR = true;
      } else if (byte === 0x0a) {
        if (!afterCR) this.#submit();
      } else if (byte === DELETE || byte === BACKSPACE) {
        if (this.#current) {
          this.#current = this.#current.slice(0, -1);
          this.#echo("\b \b");
        }
      } else if (byte === CTRL_U) {
        this.#echo("\b \b".repeat(this.#current.length));
        this.#current = "";
      } else if (byte >= 0x20 && byte < 0x7f && this.#current.length < MAX_LINE_LENGTH) {
        const c = String.fromCharCode(byte);
        this.#current += c;
        this.#echo(c);
      }
    }
  }

  #skipEscape(byte: number): void {
    if (this.#escape === "esc") {
      this.#escape = byte === 0x5b || byte === 0x4f ? "csi" : "none";
    } else if (byte >= 0x40 && byte <= 0x7e) {
      this.#escape = "none";
    }
  }

  #submit(): void {
    this.#echo("\n");
    this.#lines.push(this.#current);
    this.#current = "";
    this.#notify();
  }

  #abort(reason: AbortReason, echo: string): void {
    this.#echo(echo);
    this.#aborted = reason;
    this.#notify();
  }

  #end(keepPartialLine: boolean): void {
    if (this.#ended) return;
    if (this.#current && keepPartialLine) this.#lines.push(this.#current);
    this.#current = "";
    this.#ended = true;
    this.#notify();
  }

  #echo(text: string): void {
    if (this.io.pty) this.io.out(text);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
