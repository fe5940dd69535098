/**
 * The connection guard's thread (a Web Worker started by connection_guard.ts): accepts clients on
 * the public address, relays each to the app's Deno.serve on the private Unix socket and enforces
 * the header and idle timeouts. On its own thread, the relaying costs the app thread nothing.
 */
/// <reference lib="deno.worker" />
import {
  type CloseReason,
  FlightSlots,
  GuardedConnection,
  type GuardOptions,
  jsonErrorResponse,
  type LocalAnswerer,
  type LocalAnswererModule,
} from "./guarded_connection.ts";
import { collectGarbage } from "../memory.ts";
import { AddressCounts, normalizeIp } from "../ip.ts";

/**
 * Messages from the app thread. One thread guards every listener of the server (each a `Guard`),
 * told apart by `id`.
 */
export type GuardCommand =
  | {
    type: "start";
    id: number;
    bind: { hostname: string; port: number };
    opts: GuardOptions;
    flight: SharedArrayBuffer;
    /** Answer some requests on this thread (see LocalReads in connection_guard.ts). */
    localAnswerer: { module: string; arg: string; unavailable: string } | null;
  }
  | { type: "stop"; id: number }
  | { type: "drain"; id: number }
  /** The server is idle: give this thread's unused heap back. */
  | { type: "release" };

/** What one listener's guard tells the app thread. */
export type ListenerEvent =
  | { type: "listening"; hostname: string; port: number }
  | { type: "failed"; name: string; message: string }
  | { type: "closed"; reason: CloseReason }
  /** Requests answered here: one `<ms> <path>` line each (one string clones far cheaper). */
  | { type: "served"; served: string }
  | { type: "log"; level: "warn" | "error"; msg: string; error: string }
  | { type: "stopped" }
  | { type: "drained" };

/** Messages to the app thread: an event of the listener `id`. */
export type GuardEvent = ListenerEvent & { id: number };

/** Sends the events of one listener. */
type Emit = (event: ListenerEvent) => void;

function emitterOf(id: number): Emit {
  return (event) => self.postMessage({ ...event, id } satisfies GuardEvent);
}

const guards = new Map<number, Guard>();

self.onmessage = async (e: MessageEvent<GuardCommand>) => {
  const cmd = e.data;
  if (cmd.type === "release") {
    for (const guard of guards.values()) guard.answerer?.releaseMemory();
    return collectGarbage();
  }
  const emit = emitterOf(cmd.id);
  if (cmd.type === "start") {
    try {
      const guard = new Guard(
        cmd.bind,
        cmd.opts,
        new FlightSlots(cmd.flight),
        cmd.localAnswerer ? await openLocalAnswerer(cmd.localAnswerer, emit) : null,
        emit,
      );
      guards.set(cmd.id, guard);
      emit({ type: "listening", ...(guard.addr) });
    } catch (err) {
      const name = err instanceof Error ? err.name : "Error";
      emit({ type: "failed", name, message: String(err) });
    }
  } else if (cmd.type === "stop") {
    await guards.get(cmd.id)?.stopAccepting();
    emit({ type: "stopped" });
  } else if (cmd.type === "drain") {
    await guards.get(cmd.id)?.drained();
    guards.delete(cmd.id);
    emit({ type: "drained" });
  }
};

/** How long a refused connection may take to read its 429 before it is closed (ms). */
const REFUSAL_LINGER_MS = 250;

/** How often requests answered on this thread are reported to the app thread (ms). */
const SERVED_REPORT_MS = 10;

/**
 * The answerer the server named by module URL (the registry's reads); without it (logged) the app
 * answers every request.
 */
async function openLocalAnswerer(
  { module, arg, unavailable }: { module: string; arg: string; unavailable: string },
  emit: Emit,
): Promise<LocalAnswerer | null> {
  try {
    const loaded: LocalAnswererModule = await import(module);
    return await loaded.openLocalAnswerer(arg);
  } catch (err) {
    emit({ type: "log", level: "warn", msg: unavailable, error: String(err) });
    return null;
  }
}

/** The accept loop, the open connections and the sweeper that times them out. */
class Guard {
  readonly #listener: Deno.TcpListener;
  readonly #open = new Set<GuardedConnection>();
  readonly #sweeper: ReturnType<typeof setInterval>;
  readonly #accepting: Promise<void>;
  #stopping = false;

  constructor(
    bind: { hostname: string; port: number },
    readonly opts: GuardOptions,
    readonly slots: FlightSlots,
    readonly answerer: LocalAnswerer | null,
    readonly emit: Emit,
  ) {
    this.#exempt = new Set(opts.exemptAddresses);
    this.#listener = Deno.listen({ hostname: bind.hostname, port: bind.port });
    const timeouts = [opts.headerTimeoutMs, opts.idleTimeoutMs].filter((t) => t > 0);
    const sweepMs = Math.min(1000, Math.max(25, Math.min(...timeouts) / 4));
    this.#sweeper = setInterval(() => {
      const now = Date.now();
      for (const conn of this.#open) conn.check(now, opts);
      slots.reclaim();
    }, sweepMs);
    this.#accepting = this.#accept();
  }

  get addr(): { hostname: string; port: number } {
    const { hostname, port } = this.#listener.addr;
    return { hostname, port };
  }

  async #accept(): Promise<void> {
    while (true) {
      let client: Deno.TcpConn;
      try {
        client = await this.#listener.accept();
      } catch (err) {
        if (this.#stopping || err instanceof Deno.errors.BadResource) return;
        // Out of file descriptors and the like: keep serving the connections we have.
        this.emit({ type: "log", level: "warn", msg: "http accept failed", error: String(err) });
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      this.#serve(client).catch((err) => {
        this.emit({
          type: "log",
          level: "error",
          msg: "http connection failed",
          error: String(err),
        });
      });
    }
  }

  async #serve(client: Deno.TcpConn): Promise<void> {
    const acceptedAt = Date.now();
    const address = normalizeIp(client.remoteAddr.hostname) ?? client.remoteAddr.hostname;
    if (
      this.#perAddress.held(address) >= this.opts.maxConnectionsPerIp &&
      !this.#exempt.has(address)
    ) {
      return this.#refuseAddress(client, address);
    }
    const slot = this.slots.acquire();
    if (slot === null) {
      client.close();
      throw new Error("too many open HTTP connections");
    }
    this.#perAddress.add(address);
    client.setNoDelay(true);
    const conn = new GuardedConnection(
      slot,
      client,
      this.slots,
      acceptedAt,
      this.opts.maxHeaderBytes,
      {
        connect: () => Deno.connect({ transport: "unix", path: this.opts.socketPath }),
        onClose: (reason) => this.emit({ type: "closed", reason }),
        answerer: this.answerer,
        onAnswered: (path, ms) => this.#served(path, ms),
      },
    );
    this.#open.add(conn);
    try {
      await conn.run();
    } finally {
      this.#open.delete(conn);
      this.slots.release(slot);
      this.#perAddress.remove(address);
    }
  }

  /** Open connections per client address. */
  readonly #perAddress = new AddressCounts();
  /** Addresses the per-address cap does not apply to (trusted proxies). */
  readonly #exempt: Set<string>;
  /** Refusals since the last log line about them, and when that line was written. */
  #refusals = { count: 0, address: "", loggedAt: 0 };

  /**
   * Answers a connection over the address's limit with 429 and closes it: after the response, the
   * guard reads what the client already sent for a moment, so closing does not reset the
   * connection before the client reads the answer. Logged at most every 10 s.
   */
  async #refuseAddress(client: Deno.TcpConn, address: string): Promise<void> {
    this.emit({ type: "closed", reason: "per_address_limit" });
    const r = this.#refusals;
    r.count++;
    r.address = address;
    if (Date.now() - r.loggedAt >= 10_000) {
      this.emit({
        type: "log",
        level: "warn",
        msg: "http connections refused: too many open from one address",
        error: `${r.count} refused, last from ${address} (limit ${this.opts.maxConnectionsPerIp})`,
      });
      this.#refusals = { count: 0, address: "", loggedAt: Date.now() };
    }
    const response = jsonErrorResponse(
      429,
      `too many open connections from ${address} (limit ${this.opts.maxConnectionsPerIp})`,
      "Retry-After: 1\r\n",
    );
    const timer = setTimeout(() => client.close(), REFUSAL_LINGER_MS);
    try {
      let off = 0;
      while (off < response.length) off += await client.write(response.subarray(off));
      await client.closeWrite();
      const sink = new Uint8Array(4096);
      while (await client.read(sink) !== null) { /* drop what the client sent */ }
    } catch { /* closed by the timer, or the client went away */ }
    clearTimeout(timer);
    try {
      client.close();
    } catch { /* already closed */ }
  }

  #servedBatch: string[] = [];

  /** Reports requests answered here to the app thread (for its log and metrics), in batches. */
  #served(path: string, ms: number): void {
    if (this.#servedBatch.push(`${ms.toFixed(2)} ${path}`) === 1) {
      setTimeout(this.#report, SERVED_REPORT_MS);
    }
  }

  #report = (): void => {
    if (this.#servedBatch.length === 0) return;
    this.emit({ type: "served", served: this.#servedBatch.join("\n") });
    this.#servedBatch = [];
  };

  /** Stops accepting new clients. */
  async stopAccepting(): Promise<void> {
    this.#stopping = true;
    this.#listener.close();
    await this.#accepting;
  }

  /** Resolves once every connection has ended (the app closed its side), then stops sweeping. */
  async drained(): Promise<void> {
    while (this.#open.size > 0) await new Promise((r) => setTimeout(r, 10));
    clearInterval(this.#sweeper);
    this.#report();
    await this.answerer?.close();
  }
}
