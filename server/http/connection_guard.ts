/**
 * HTTP header and idle timeouts in front of Deno.serve, which has neither: the public listener
 * accepts each client and pipes its bytes to a private Deno.serve on a Unix socket, one socket
 * connection per client. Only the request direction is parsed (framing, not content), so the guard
 * knows when each header block started and whether the client owes bytes; responses are copied
 * untouched. The guard adds one header to each request naming its connection, so handlers see the
 * real client address; a client sending that header itself is refused.
 */
import { CONNECTION_HEADER, FramingError, RequestFramer } from "./request_framing.ts";
import { log } from "../log.ts";
import { httpConnectionsClosed } from "../metrics.ts";

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
}

/** The largest header block accepted: 64 KiB, then 431. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** A running HTTP listener (guarded or a plain Deno.serve). */
export interface HttpListener {
  readonly addr: Deno.Addr;
  /** Stops accepting, lets requests in progress finish, then resolves. */
  shutdown(): Promise<void>;
}

/** A request handler as the app takes it: `info.remoteAddr` is the client's TCP address. */
export type HttpHandler = Deno.ServeHandler<Deno.NetAddr>;

/** Serves `handler` on `bind` behind the guard. */
export function serveGuarded(
  bind: { hostname: string; port: number },
  handler: HttpHandler,
  opts: GuardOptions,
): HttpListener {
  const open = new Map<string, GuardedConnection>();
  let nextId = 1;
  const listener = Deno.listen({ hostname: bind.hostname, port: bind.port });
  try {
    Deno.removeSync(opts.socketPath);
  } catch { /* not there */ }
  const inner = Deno.serve({ path: opts.socketPath, onListen: () => {} }, (req, info) => {
    const id = req.headers.get(CONNECTION_HEADER);
    const conn = id === null ? undefined : open.get(id);
    if (!conn) return Response.json({ error: "not a guarded connection" }, { status: 400 });
    return conn.handle(req, info, handler);
  });
  let stopping = false;

  const sweepMs = Math.min(
    1000,
    Math.max(25, Math.min(...[opts.headerTimeoutMs, opts.idleTimeoutMs].filter((t) => t > 0)) / 4),
  );
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const conn of open.values()) conn.check(now, opts);
  }, sweepMs);

  const serveConnection = async (client: Deno.TcpConn) => {
    const acceptedAt = Date.now();
    let upstream: Deno.UnixConn;
    try {
      upstream = await Deno.connect({ transport: "unix", path: opts.socketPath });
    } catch {
      client.close();
      return;
    }
    client.setNoDelay(true);
    const id = String(nextId++);
    const conn = new GuardedConnection(id, client, upstream, acceptedAt, opts.maxHeaderBytes);
    open.set(id, conn);
    try {
      await conn.run();
    } finally {
      open.delete(id);
    }
  };

  const accepting = (async () => {
    while (true) {
      let client: Deno.TcpConn;
      try {
        client = await listener.accept();
      } catch (err) {
        if (stopping || err instanceof Deno.errors.BadResource) return;
        // Out of file descriptors and the like: keep serving the connections we have.
        log("warn", "http accept failed", { error: String(err) });
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      serveConnection(client).catch((err) => {
        log("error", "http connection failed", { error: String(err) });
      });
    }
  })();

  return {
    addr: listener.addr,
    async shutdown() {
      stopping = true;
      listener.close();
      await accepting;
      // Deno.serve finishes requests in progress and closes its side of every connection; each
      // guarded connection then ends. The sweeper keeps timing out slow clients meanwhile.
      await inner.shutdown();
      while (open.size > 0) await new Promise((r) => setTimeout(r, 10));
      clearInterval(sweeper);
      try {
        Deno.removeSync(opts.socketPath);
      } catch { /* already gone */ }
    },
  };
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
  431: "Request Header Fields Too Large",
};

/** One client connection and its Unix socket twin. */
class GuardedConnection {
  readonly framer: RequestFramer;
  /** `CONNECTION_HEADER: <id>` and CRLF, inserted after each request line. */
  readonly #tag: Uint8Array;
  readonly clientAddr: Deno.NetAddr;
  /** Last time a byte moved either way (ms). */
  lastActivity: number;
  /** Requests handed to the app whose responses are not completely sent yet. */
  inFlight = 0;
  /** A write to the client is waiting (the client is not reading fast enough). */
  writingToClient = false;
  /** A write to the app is waiting (the app is not reading the body yet). */
  writingToApp = false;
  #closed = false;
  #refusing = false;

  constructor(
    id: string,
    readonly client: Deno.TcpConn,
    readonly upstream: Deno.UnixConn,
    acceptedAt: number,
    maxHeaderBytes: number,
  ) {
    this.#tag = new TextEncoder().encode(`${CONNECTION_HEADER}: ${id}\r\n`);
    this.clientAddr = client.remoteAddr;
    this.lastActivity = acceptedAt;
    this.framer = new RequestFramer(maxHeaderBytes, acceptedAt);
  }

  /** Calls the app with the client's own address and counts the request until it is sent. */
  handle(
    req: Request,
    info: Deno.ServeHandlerInfo,
    handler: HttpHandler,
  ): Response | Promise<Response> {
    this.inFlight++;
    const done = () => this.inFlight--;
    info.completed.then(done, done);
    return handler(req, { remoteAddr: this.clientAddr, completed: info.completed });
  }

  /** Resolves when both directions have ended. */
  async run(): Promise<void> {
    await Promise.all([this.#requests(), this.#responses()]);
  }

  /** Applies the timeouts at `now`. */
  check(now: number, opts: GuardOptions): void {
    if (this.#refusing) return;
    const started = this.framer.headerStartedAt;
    if (opts.headerTimeoutMs > 0 && started !== null && now - started >= opts.headerTimeoutMs) {
      httpConnectionsClosed.inc({ reason: "header_timeout" });
      this.#refuse(408, "request header timeout");
    } else if (
      opts.idleTimeoutMs > 0 && now - this.lastActivity >= opts.idleTimeoutMs && this.#idle()
    ) {
      httpConnectionsClosed.inc({ reason: "idle_timeout" });
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
    return this.inFlight === 0;
  }

  /** Closes both sockets; the pumps then end. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.client.close();
    } catch { /* already closed */ }
    try {
      this.upstream.close();
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
          httpConnectionsClosed.inc({ reason: "refused" });
          return this.#refuse(err.status, err.message);
        }
        this.writingToApp = true;
        await this.#writeAll(this.upstream, this.#tagged(chunk));
        this.writingToApp = false;
        if (n === buf.length && n < MAX_BUFFER) buf = new Uint8Array(n * 2);
      }
      // The client finished sending; the app may still answer (half-close passes through).
      await this.upstream.closeWrite().catch(() => {});
    } catch {
      this.close();
    }
  }

  async #responses(): Promise<void> {
    let buf = new Uint8Array(MIN_RESPONSE_BUFFER);
    try {
      while (true) {
        const n = await this.upstream.read(buf);
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

  /** `chunk` with the connection header inserted after every request line that ends in it. */
  #tagged(chunk: Uint8Array): Uint8Array {
    const ends = this.framer.requestLineEnds;
    if (ends.length === 0) return chunk;
    const tag = this.#tag;
    const out = new Uint8Array(chunk.length + ends.length * tag.length);
    let from = 0;
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
    if (this.framer.requests === 0 && this.inFlight === 0 && !this.writingToClient) {
      const body = JSON.stringify({ error: message });
      const head = `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        "Connection: close\r\n\r\n";
      this.writingToClient = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#writeAll(this.client, new TextEncoder().encode(head + body)).catch(() => {}),
        new Promise((r) => (timer = setTimeout(r, 1000))),
      ]);
      clearTimeout(timer);
    }
    this.close();
  }
}
