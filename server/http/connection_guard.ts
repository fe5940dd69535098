/**
 * HTTP header and idle timeouts in front of Deno.serve, which has neither. A guard thread
 * (guard_worker.ts) accepts each client on the public address and pipes its bytes to a private
 * Deno.serve on a Unix socket, one socket connection per client; it parses only the request
 * direction (framing, not content), so it knows when each header block started and whether the
 * client owes bytes. It adds one header to each request naming the connection's slot and client
 * address, so handlers see the real client address (a client sending that header itself is
 * refused); the app thread counts the requests it is answering in that slot, so silence while
 * the server works is never taken for an idle client.
 */
import { CONNECTION_HEADER } from "./request_framing.ts";
import type { GuardOptions } from "./guarded_connection.ts";
import type { GuardCommand, GuardEvent, ListenerEvent } from "./guard_worker.ts";
import { log } from "../log.ts";
import { httpConnectionsClosed } from "../metrics.ts";

export type { GuardOptions } from "./guarded_connection.ts";

/** The largest header block accepted: 64 KiB, then 431. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** Default for connections one client address may hold open on a listener (nginx has none;
 * browsers open 6 per host, git 1 or 2, so this leaves room for a whole office behind one NAT). */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 256;

/** Most connections open at once on one guarded listener (one in-flight counter each). */
export const MAX_GUARDED_CONNECTIONS = 65_536;

/** A running HTTP listener (guarded or a plain Deno.serve). */
export interface HttpListener {
  readonly addr: Deno.Addr;
  /** Stops accepting, lets requests in progress finish, then resolves. */
  shutdown(): Promise<void>;
  /** Gives back memory the listener's own thread holds (the server is idle). */
  releaseMemory?(): void;
}

/** One request the guard's thread answered itself: its path and how long it took (ms). */
export interface ServedLocally {
  path: string;
  ms: number;
}

/**
 * Requests the guard's thread answers itself (the registry's stored bots and plain searches): the
 * thread imports `module` (a URL; it exports `openLocalAnswerer`, see LocalAnswererModule) and
 * opens the answerer with `arg`. `report` logs and counts what it answered.
 */
export interface LocalReads {
  module: string;
  arg: string;
  /** Logged as a warning when the answerer cannot be opened (the app then answers everything). */
  unavailable: string;
  report(served: ServedLocally[]): void;
}

/** A request handler as the app takes it: `info.remoteAddr` is the client's TCP address. */
export type HttpHandler = Deno.ServeHandler<Deno.NetAddr>;

/** Serves `handler` on `bind` behind the guard; resolves once the public address listens. */
export async function serveGuarded(
  bind: { hostname: string; port: number },
  handler: HttpHandler,
  opts: GuardOptions,
  localReads: LocalReads | null = null,
): Promise<HttpListener> {
  try {
    Deno.removeSync(opts.socketPath);
  } catch { /* not there */ }
  const flight = new SharedArrayBuffer(4 * MAX_GUARDED_CONNECTIONS);
  const counts = new Int32Array(flight);
  const inner = Deno.serve({ path: opts.socketPath, onListen: () => {} }, (req, info) => {
    const conn = parseConnectionHeader(req.headers.get(CONNECTION_HEADER));
    if (!conn) return Response.json({ error: "not a guarded connection" }, { status: 400 });
    const slot = conn.slot;
    Atomics.add(counts, slot, 1);
    const done = () => Atomics.sub(counts, slot, 1);
    info.completed.then(done, done);
    return handler(req, { remoteAddr: conn.remoteAddr, completed: info.completed });
  });

  const thread = guardThread();
  const id = thread.nextId++;
  const waiting = new Map<ListenerEvent["type"], () => void>();
  const next = (type: "stopped" | "drained") =>
    new Promise<void>((resolve) => waiting.set(type, resolve));
  const started = new Promise<Deno.NetAddr>((resolve, reject) => {
    thread.listeners.set(id, (event) => {
      if (event.type === "listening") {
        resolve({ transport: "tcp", hostname: event.hostname, port: event.port });
      } else if (event.type === "failed") {
        const err = new Error(event.message);
        err.name = event.name;
        reject(err);
      } else if (event.type === "served") {
        localReads?.report(
          event.served.split("\n").map((line) => {
            const space = line.indexOf(" ");
            return { ms: Number(line.slice(0, space)), path: line.slice(space + 1) };
          }),
        );
      } else if (event.type === "closed") {
        httpConnectionsClosed.inc({ reason: event.reason });
      } else if (event.type === "log") {
        log(event.level, event.msg, { error: event.error });
      } else {
        waiting.get(event.type)?.();
        waiting.delete(event.type);
      }
    });
  });
  const command = (cmd: GuardCommand) => thread.worker.postMessage(cmd);
  command({
    type: "start",
    id,
    bind,
    opts,
    flight,
    localAnswerer: localReads
      ? { module: localReads.module, arg: localReads.arg, unavailable: localReads.unavailable }
      : null,
  });
  let addr: Deno.NetAddr;
  try {
    addr = await started;
  } catch (err) {
    thread.leave(id);
    await inner.shutdown();
    throw err;
  }

  return {
    addr,
    releaseMemory: () => command({ type: "release" }),
    async shutdown() {
      const stopped = next("stopped");
      command({ type: "stop", id });
      await stopped;
      // Deno.serve finishes requests in progress and closes its side of every connection; each
      // guarded connection then ends. The guard keeps timing out slow clients meanwhile.
      await inner.shutdown();
      const drained = next("drained");
      command({ type: "drain", id });
      await drained;
      thread.leave(id);
      try {
        Deno.removeSync(opts.socketPath);
      } catch { /* already gone */ }
    },
  };
}

/** The one thread that guards every listener of this process, and who listens to it. */
interface GuardThread {
  worker: Worker;
  /** Each guarded listener's event handler, by id. */
  listeners: Map<number, (event: ListenerEvent) => void>;
  nextId: number;
  /** Forgets listener `id`; the thread ends with the last one. */
  leave(id: number): void;
}

let shared: GuardThread | null = null;

/**
 * The guard thread, started by the first guarded listener: one worker for the hosting and the
 * registry listeners alike (a worker isolate holds some 8 MB even idle; the decision with its
 * numbers: docs/decisions/performance-and-bench.md, "Memory at rest").
 */
function guardThread(): GuardThread {
  if (shared) return shared;
  const worker = new Worker(new URL("./guard_worker.ts", import.meta.url), { type: "module" });
  const thread: GuardThread = {
    worker,
    listeners: new Map(),
    nextId: 1,
    leave(id) {
      this.listeners.delete(id);
      if (this.listeners.size > 0) return;
      worker.terminate();
      if (shared === thread) shared = null;
    },
  };
  worker.onmessage = (e: MessageEvent<GuardEvent>) => thread.listeners.get(e.data.id)?.(e.data);
  worker.onerror = (e) => {
    // A bug in the guard would leave the address unserved: stop, so the supervisor restarts us.
    log("error", "http connection guard crashed", { error: e.message });
    Deno.exit(1);
  };
  return (shared = thread);
}

/** The guard's connection header: `<slot> <client host> <client port>`; null if malformed. */
function parseConnectionHeader(
  value: string | null,
): { slot: number; remoteAddr: Deno.NetAddr } | null {
  if (value === null) return null;
  const [slotText, hostname, portText] = value.split(" ");
  const slot = Number(slotText);
  const port = Number(portText);
  if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_GUARDED_CONNECTIONS) return null;
  if (!hostname || !Number.isInteger(port)) return null;
  return { slot, remoteAddr: { transport: "tcp", hostname, port } };
}
