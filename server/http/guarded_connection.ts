/**
 * One client connection of the connection guard (guard_worker.ts) and, once it needs one, its Unix
 * socket twin to the app's Deno.serve: the request direction is followed by the framer, the
 * response direction is copied untouched. Runs on the guard's worker thread; the app thread counts
 * the requests it is answering in a shared slot (FlightSlots), so the guard knows whether silence
 * is the server's. Requests a LocalAnswerer takes (stored registry bots) are answered right here,
 * until the first request that goes to the app; from then on every byte is relayed, in order.
 */
import { CONNECTION_HEADER, FramingError, RequestFramer } from "./request_framing.ts";

/** Limits the guard enforces; a timeout of 0 turns that check off. */
export interface GuardOptions {
  /** Time a header block may take, from its first byte (the first request's: from accept). */
  headerTimeoutMs: number;
  /** Time a connection may go without a byte moving while nothing is owed by the server. */
  idleTimeoutMs: number;
  /** Largest header block (request line, headers; chunked trailers likewise). */
  maxHeaderBytes: number;
  /** Path of the private Unix socket between the guard and Deno.serve (replaced if present). */
  socketPath: string;
  /** Connections one client address may hold open at once; more are answered 429 and closed. */
  maxConnectionsPerIp: number;
  /** Addresses exempt from that cap: trusted reverse proxies, which carry many clients (normalized). */
  exemptAddresses: string[];
}

/** A response the guard writes itself. */
export interface LocalAnswer {
  bytes: Uint8Array;
  /** The client asked to close the connection after this response. */
  close: boolean;
  /** The request path, for the log line. */
  path: string;
}

/** Answers some bodyless requests on the guard thread (`head`: the header block as text). */
export interface LocalAnswerer {
  /** The answer, or null to pass the request on (a promise when the answerer must wait for it). */
  answer(head: string): LocalAnswer | null | Promise<LocalAnswer | null>;
  /** Gives back memory held for speed (its database's caches), for a server at rest. */
  releaseMemory(): void;
  /** Releases what the answerer holds (its database connection). */
  close(): void | Promise<void>;
}

/**
 * A module the guard's thread can import to answer requests itself: the server passes its URL (the
 * guard knows nothing of what it answers).
 */
export interface LocalAnswererModule {
  openLocalAnswerer(arg: string): LocalAnswerer | Promise<LocalAnswerer>;
}

/** Why the guard closed a connection (the `reason` label of the metric). */
export type CloseReason = "header_timeout" | "idle_timeout" | "refused" | "per_address_limit";

/**
 * Per-connection counters of requests the app is still answering, in memory shared by the guard
 * thread (which hands out slots) and the app thread (which counts). A slot is reused only once its
 * connection has closed and its count is back to zero.
 */
export class FlightSlots {
  readonly counts: Int32Array;
  #free: number[];
  #closing = new Set<number>();

  constructor(readonly buffer: SharedArrayBuffer) {
    this.counts = new Int32Array(buffer);
    this.#free = Array.from({ length: this.counts.length }, (_, i) => this.counts.length - 1 - i);
  }

  /** A free slot, or null when every slot is taken. */
  acquire(): number | null {
    return this.#free.pop() ?? null;
  }

  /** Requests the app is answering on `slot`. */
  inFlight(slot: number): number {
    return Atomics.load(this.counts, slot);
  }

  /** Gives `slot` back once its count is zero (checked now and on every `reclaim`). */
  release(slot: number): void {
    this.#closing.add(slot);
    this.reclaim();
  }

  /** Frees released slots whose requests have all completed. */
  reclaim(): void {
    for (const slot of this.#closing) {
      if (this.inFlight(slot) !== 0) continue;
      this.#closing.delete(slot);
      this.#free.push(slot);
    }
  }
}

/**
 * Read buffers start small (an idle keep-alive connection holds both while it waits) and double
 * while reads fill them, up to MAX_BUFFER.
 */
const MIN_REQUEST_BUFFER = 2 * 1024;
const MIN_RESPONSE_BUFFER = 4 * 1024;
const MAX_BUFFER = 64 * 1024;

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
};

/**
 * The bytes of a `status` response the guard writes itself: `{"error": message}` as JSON, then
 * the connection closes. `extraHeaders`: more header lines, each ending in CRLF.
 */
export function jsonErrorResponse(status: number, message: string, extraHeaders = ""): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify({ error: message }));
  const head = new TextEncoder().encode(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n${extraHeaders}Connection: close\r\n\r\n`,
  );
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
}

/** One client connection and its Unix socket twin. */
export class GuardedConnection {
  readonly framer: RequestFramer;
  /** `CONNECTION_HEADER: <slot> <client host> <client port>` and CRLF, after each request line. */
  readonly #tag: Uint8Array;
  /** Last time a byte moved either way (ms). */
  lastActivity: number;
  /** A write to the client is waiting (the client is not reading fast enough). */
  writingToClient = false;
  /** A write to the app is waiting (the app is not reading the body yet). */
  writingToApp = false;
  #closed = false;
  #refusing = false;
  /** The app's side, connected when the first request goes to the app. */
  #upstream: Deno.UnixConn | null = null;
  /** The response pump, running once #upstream is connected. */
  #responding: Promise<void> | null = null;

  constructor(
    readonly slot: number,
    readonly client: Deno.TcpConn,
    readonly slots: FlightSlots,
    acceptedAt: number,
    maxHeaderBytes: number,
    readonly hooks: {
      connect(): Promise<Deno.UnixConn>;
      onClose(reason: CloseReason): void;
      answerer: LocalAnswerer | null;
      onAnswered(path: string, ms: number): void;
    },
  ) {
    const { hostname, port } = client.remoteAddr;
    this.#tag = new TextEncoder().encode(`${CONNECTION_HEADER}: ${slot} ${hostname} ${port}\r\n`);
    this.lastActivity = acceptedAt;
    this.framer = new RequestFramer(maxHeaderBytes, acceptedAt);
  }

  /** Resolves when both directions have ended. */
  async run(): Promise<void> {
    await this.#requests();
    if (this.#responding) await this.#responding;
    else this.close();
  }

  /** Applies the timeouts at `now`. */
  check(now: number, opts: GuardOptions): void {
    if (this.#refusing) return;
    const started = this.framer.headerStartedAt;
    if (opts.headerTimeoutMs > 0 && started !== null && now - started >= opts.headerTimeoutMs) {
      this.hooks.onClose("header_timeout");
      this.#refuse(408, "request header timeout");
    } else if (
      opts.idleTimeoutMs > 0 && now - this.lastActivity >= opts.idleTimeoutMs && this.#idle()
    ) {
      this.hooks.onClose("idle_timeout");
      this.close();
    }
  }

  /**
   * Whether silence is the client's doing: it stopped reading our response, stopped sending its
   * request, or has nothing in progress (keep-alive). Silence while the app has not taken the
   * body yet or is still producing a response (a queued or long git operation) is not.
   */
  #idle(): boolean {
    if (this.writingToClient) return true;
    if (this.writingToApp) return false;
    if (this.framer.midRequest) return true;
    return this.slots.inFlight(this.slot) === 0;
  }

  /** Closes both sockets; the pumps then end. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.client.close();
    } catch { /* already closed */ }
    try {
      this.#upstream?.close();
    } catch { /* already closed */ }
  }

  async #requests(): Promise<void> {
    let buf = new Uint8Array(MIN_REQUEST_BUFFER);
    try {
      while (true) {
        const n = await this.client.read(buf);
        if (n === null) break;
        const now = Date.now();
        this.lastActivity = now;
        const chunk = buf.subarray(0, n);
        try {
          this.framer.feed(chunk, now);
        } catch (err) {
          if (!(err instanceof FramingError)) throw err;
          this.hooks.onClose("refused");
          return this.#refuse(err.status, err.message);
        }
        // Only until the first request goes to the app, and only where something answers locally.
        const from = this.#upstream || !this.hooks.answerer ? 0 : await this.#answerLocally(chunk);
        if (this.#closed) return;
        if (from < n) {
          const upstream = this.#upstream ?? await this.#connect();
          this.writingToApp = true;
          await this.#writeAll(upstream, this.#tagged(chunk, from));
          this.writingToApp = false;
        }
        if (n === buf.length && n < MAX_BUFFER) buf = new Uint8Array(n * 2);
      }
      // The client finished sending; the app may still answer (half-close passes through).
      await this.#upstream?.closeWrite().catch(() => {});
    } catch {
      this.close();
    }
  }

  /**
   * Answers the chunk's leading requests the answerer takes, in order, each written before the
   * next is looked at; returns the offset of the first byte left for the app (the chunk's length
   * when none is). Stops at the first request it does not take: that one and all after it go to
   * the app, so responses stay in request order.
   */
  async #answerLocally(chunk: Uint8Array): Promise<number> {
    const answerer = this.hooks.answerer!;
    let from = 0;
    for (const head of this.framer.heads) {
      if (head.start < from || !head.bodyless) return from;
      const startMs = performance.now();
      let answer;
      try {
        // Only an answer still to come is awaited: a ready one is written in this same turn.
        const pending = answerer.answer(head.text);
        answer = pending instanceof Promise ? await pending : pending;
      } catch {
        answer = null; // the app answers it (and reports what went wrong)
      }
      if (!answer) return from;
      this.writingToClient = true;
      await this.#writeAll(this.client, answer.bytes);
      this.writingToClient = false;
      this.hooks.onAnswered(answer.path, performance.now() - startMs);
      from = head.end;
      if (answer.close) {
        this.close();
        return chunk.length;
      }
    }
    // What follows the last answered request is either blank lines or the start of another.
    return this.framer.midRequest ? from : chunk.length;
  }

  /** Connects to the app and starts relaying its responses. */
  async #connect(): Promise<Deno.UnixConn> {
    const upstream = await this.hooks.connect();
    if (this.#closed) {
      upstream.close();
      throw new Error("connection closed");
    }
    this.#upstream = upstream;
    this.#responding = this.#responses(upstream);
    return upstream;
  }

  async #responses(upstream: Deno.UnixConn): Promise<void> {
    let buf = new Uint8Array(MIN_RESPONSE_BUFFER);
    try {
      while (true) {
        const n = await upstream.read(buf);
        if (n === null) break;
        this.lastActivity = Date.now();
        this.writingToClient = true;
        await this.#writeAll(this.client, buf.subarray(0, n));
        this.writingToClient = false;
        if (n === buf.length && n < MAX_BUFFER) buf = new Uint8Array(n * 2);
      }
    } catch { /* closed under us */ }
    this.close();
  }

  /**
   * `chunk` from offset `start` on, with the connection header inserted after every request line
   * that ends in it.
   */
  #tagged(chunk: Uint8Array, start: number): Uint8Array {
    const ends = this.framer.requestLineEnds.filter((end) => end > start);
    if (ends.length === 0) return chunk.subarray(start);
    const tag = this.#tag;
    const out = new Uint8Array(chunk.length - start + ends.length * tag.length);
    let from = start;
    let at = 0;
    for (const end of ends) {
      out.set(chunk.subarray(from, end), at);
      at += end - from;
      out.set(tag, at);
      at += tag.length;
      from = end;
    }
    out.set(chunk.subarray(from), at);
    return out;
  }

  async #writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) {
      off += await conn.write(bytes.subarray(off));
      this.lastActivity = Date.now();
    }
  }

  /**
   * Ends the connection; on its first request (nothing forwarded that could still be answered)
   * the client first gets `status` with a JSON error.
   */
  async #refuse(status: number, message: string): Promise<void> {
    if (this.#closed || this.#refusing) return;
    this.#refusing = true;
    const answering = this.slots.inFlight(this.slot) > 0;
    if (this.framer.requests === 0 && !answering && !this.writingToClient) {
      this.writingToClient = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#writeAll(this.client, jsonErrorResponse(status, message)).catch(() => {}),
        new Promise((r) => (timer = setTimeout(r, 1000))),
      ]);
      clearTimeout(timer);
    }
    this.close();
  }
}
