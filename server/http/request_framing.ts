/**
 * Follows HTTP/1.x *request* framing on a byte stream without buffering bodies: where each header
 * block starts and ends, then how long the body is (Content-Length, or chunked with trailers), so
 * the connection guard knows when a client is mid-request and when a header block started, and
 * where each request line ends (the guard inserts its connection header there). Pipelined
 * requests are followed one after the other. Framing that is ambiguous or that Deno's HTTP server
 * would reject anyway is refused with a FramingError (status + message).
 */

const LF = 10;
const CR = 13;

/** The header the guard adds to every request; a client sending it is refused. */
export const CONNECTION_HEADER = "x-signet-guard-connection";

/** Request framing the guard refuses: answered with `status` on a fresh connection, then closed. */
export class FramingError extends Error {
  constructor(readonly status: 400 | 431, message: string) {
    super(message);
  }
}

/** A header block completed in the last fed chunk. */
export interface CompletedHead {
  /** Offset in the chunk where the block's request line starts; -1 if it began in an earlier chunk. */
  start: number;
  /** Offset in the chunk just after the block's final LF. */
  end: number;
  /** The block as latin1 text (request line and headers). */
  text: string;
  /** True when no body follows (neither Content-Length above 0 nor chunked). */
  bodyless: boolean;
}

type State = "between" | "head" | "body" | "chunk-size" | "chunk-data" | "chunk-end" | "trailers";

/** Incremental request framer for one connection; feed it every byte the client sends, in order. */
export class RequestFramer {
  #state: State = "between";
  /** Bytes of the current header block (or chunk-size line / trailer section). */
  #head: Uint8Array;
  #headLength = 0;
  /** Offset in #head where the current line starts. */
  #lineStart = 0;
  /** Body or chunk bytes still to come. */
  #remaining = 0;
  /** When the current header block started (ms); null when no header block is being read. */
  headerStartedAt: number | null;
  /** Header blocks completed so far. */
  requests = 0;
  /** Offsets in the last fed chunk just after each request line's LF. */
  readonly requestLineEnds: number[] = [];
  /** Header blocks completed in the last fed chunk, in order. */
  readonly heads: CompletedHead[] = [];
  /** Where the current header block started in the chunk being fed (-1: in an earlier one). */
  #headStart = -1;
  /** Offset of the byte being handled in the chunk being fed. */
  #at = 0;

  /** `startedAt`: when the connection was accepted (the first header block is timed from then). */
  constructor(readonly maxHeaderBytes: number, startedAt: number) {
    this.#head = new Uint8Array(Math.min(1024, maxHeaderBytes));
    this.headerStartedAt = startedAt;
  }

  /** True while the client owes bytes of a request (header block or body). */
  get midRequest(): boolean {
    return this.#state !== "between";
  }

  /** Consumes `chunk` (received at `now`); throws FramingError on framing the guard refuses. */
  feed(chunk: Uint8Array, now: number): void {
    this.requestLineEnds.length = 0;
    this.heads.length = 0;
    this.#headStart = -1;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      switch (this.#state) {
        case "between":
          // Empty lines before a request line are allowed (RFC 9112 §2.2) but start the clock.
          this.headerStartedAt ??= now;
          if (chunk[i] === CR || chunk[i] === LF) {
            i++;
            break;
          }
          this.#state = "head";
          this.#headStart = i;
          this.#resetLines();
          break;
        case "head":
        case "trailers":
        case "chunk-size":
          i = this.#readLines(chunk, i);
          break;
        case "body":
        case "chunk-data": {
          const take = Math.min(this.#remaining, n - i);
          this.#remaining -= take;
          i += take;
          if (this.#remaining > 0) break;
          if (this.#state === "body") this.#endRequest();
          else this.#enterLine("chunk-end");
          break;
        }
        case "chunk-end":
          i = this.#readLines(chunk, i);
          break;
      }
    }
  }

  #resetLines(): void {
    this.#headLength = 0;
    this.#lineStart = 0;
  }

  #enterLine(state: State): void {
    this.#state = state;
    this.#resetLines();
  }

  /** Appends bytes up to and including the next LF; handles each complete line. */
  #readLines(chunk: Uint8Array, from: number): number {
    const lf = chunk.indexOf(LF, from);
    const end = lf < 0 ? chunk.length : lf + 1;
    this.#append(chunk.subarray(from, end));
    if (lf < 0) return end;
    this.#at = end;
    if (this.#state === "head" && this.#lineStart === 0) this.requestLineEnds.push(end);
    this.#line();
    return end;
  }

  #append(bytes: Uint8Array): void {
    const need = this.#headLength + bytes.length;
    if (need > this.maxHeaderBytes) {
      throw new FramingError(431, "request header block too large");
    }
    if (need > this.#head.length) {
      const grown = new Uint8Array(
        Math.min(this.maxHeaderBytes, Math.max(need, this.#head.length * 2)),
      );
      grown.set(this.#head.subarray(0, this.#headLength));
      this.#head = grown;
    }
    this.#head.set(bytes, this.#headLength);
    this.#headLength = need;
  }

  /** Handles the line that just ended (#head[#lineStart .. #headLength) ends with LF). */
  #line(): void {
    let end = this.#headLength - 1;
    if (end > this.#lineStart && this.#head[end - 1] === CR) end--;
    const empty = end === this.#lineStart;
    switch (this.#state) {
      case "head":
        if (empty) this.#endHead();
        else this.#lineStart = this.#headLength;
        return;
      case "trailers":
        if (empty) this.#endRequest();
        else this.#lineStart = this.#headLength;
        return;
      case "chunk-end":
        if (!empty) throw new FramingError(400, "malformed chunked request body");
        this.#enterLine("chunk-size");
        return;
      case "chunk-size": {
        const size = chunkSize(latin1(this.#head.subarray(0, end)));
        if (size === 0) this.#enterLine("trailers");
        else {
          this.#state = "chunk-data";
          this.#remaining = size;
        }
        return;
      }
    }
  }

  #endHead(): void {
    const text = latin1(this.#head.subarray(0, this.#headLength));
    const framing = bodyFraming(text);
    this.heads.push({ start: this.#headStart, end: this.#at, text, bodyless: framing === 0 });
    this.requests++;
    this.headerStartedAt = null;
    if (framing === "chunked") this.#enterLine("chunk-size");
    else if (framing > 0) {
      this.#state = "body";
      this.#remaining = framing;
    } else this.#endRequest();
  }

  #endRequest(): void {
    this.#state = "between";
    this.headerStartedAt = null;
  }
}

const decoder = new TextDecoder("latin1");
function latin1(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Size of one chunk from its size line (extensions ignored); FramingError when malformed. */
function chunkSize(line: string): number {
  const m = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
  if (!m) throw new FramingError(400, "malformed chunked request body");
  return parseInt(m[1], 16);
}

/**
 * The body framing of a complete header block: "chunked" or a byte count (0 when none).
 * Refuses what could be read two ways (both Content-Length and Transfer-Encoding, differing
 * Content-Length values, transfer codings other than one chunked) and obsolete line folding.
 */
export function bodyFraming(head: string): number | "chunked" {
  const lines = head.split("\n");
  if (lines[0].startsWith("PRI * HTTP/2")) {
    throw new FramingError(400, "HTTP/2 without TLS is not supported; use HTTP/1.1");
  }
  let length: string | null = null;
  let chunked: boolean | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
    if (line === "") break;
    if (line[0] === " " || line[0] === "\t") {
      throw new FramingError(400, "obsolete header line folding is not supported");
    }
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).toLowerCase();
    if (colon <= 0 || /[\s]/.test(name)) throw new FramingError(400, "malformed header line");
    if (name === CONNECTION_HEADER) throw new FramingError(400, `${CONNECTION_HEADER} is reserved`);
    if (name === "content-length") {
      for (const part of line.slice(colon + 1).split(",")) {
        const value = part.trim();
        if (!/^\d{1,15}$/.test(value) || (length !== null && length !== value)) {
          throw new FramingError(400, "invalid Content-Length");
        }
        length = value;
      }
    } else if (name === "transfer-encoding") {
      // Deno's server decodes no other transfer coding, and chunked may appear only once.
      if (chunked !== null || line.slice(colon + 1).trim().toLowerCase() !== "chunked") {
        throw new FramingError(400, "Transfer-Encoding must be exactly chunked");
      }
      chunked = true;
    }
  }
  if (chunked !== null) {
    if (length !== null) {
      throw new FramingError(400, "Content-Length and Transfer-Encoding must not both be sent");
    }
    return "chunked";
  }
  return length === null ? 0 : Number(length);
}
