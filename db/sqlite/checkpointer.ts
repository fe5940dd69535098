/**
 * WAL checkpoints mostly off the writer's thread. SQLite's writing connection copies the log back
 * into the database file inside a COMMIT whenever the log passes 1,000 pages (and syncs both files
 * on a disk); under a stream of registry writes that work landed on the one thread that writes. A
 * worker now checkpoints every CHECKPOINT_EVERY_MS on its own connection, so by the time the writer
 * checkpoints, nearly every page is already copied. The writer's own checkpoint stays on: it is
 * what restarts the log from its beginning, which keeps the WAL file small.
 */
import type { CheckpointCommand, CheckpointEvent } from "./checkpoint_worker.ts";

/** How often the worker checkpoints. */
export const CHECKPOINT_EVERY_MS = 50;

/** A running checkpointer. */
export interface Checkpointer {
  /** Stops the worker (the writer keeps checkpointing by itself). */
  stop(): Promise<void>;
}

/**
 * Starts checkpointing the database at `path` from a worker thread; throws if it cannot start.
 * `onFailure` hears why, should the worker fail later.
 */
export async function startCheckpointer(
  path: string,
  opts: { everyMs?: number; onFailure?: (message: string) => void } = {},
): Promise<Checkpointer> {
  const worker = new Worker(new URL("./checkpoint_worker.ts", import.meta.url), {
    type: "module",
  });
  const events = new Map<CheckpointEvent["type"], (e: CheckpointEvent) => void>();
  const next = (type: CheckpointEvent["type"]) =>
    new Promise<CheckpointEvent>((resolve) => events.set(type, resolve));
  worker.onmessage = (e: MessageEvent<CheckpointEvent>) => {
    const handler = events.get(e.data.type);
    events.delete(e.data.type);
    handler?.(e.data);
  };
  let running = false;
  const crashed = new Promise<CheckpointEvent>((resolve) => {
    worker.onerror = (e) => {
      e.preventDefault();
      worker.terminate();
      if (running) opts.onFailure?.(e.message);
      running = false;
      resolve({ type: "failed", message: e.message });
    };
  });
  const command = (c: CheckpointCommand) => worker.postMessage(c);
  command({ type: "start", path, everyMs: opts.everyMs ?? CHECKPOINT_EVERY_MS });
  const started = await Promise.race([next("ready"), next("failed"), crashed]);
  if (started.type === "failed") {
    worker.terminate();
    throw new Error(`the WAL checkpointer did not start: ${started.message}`);
  }
  running = true;
  return {
    async stop() {
      if (!running) return;
      running = false;
      command({ type: "stop" });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise((r) => timer = setTimeout(r, 2000));
      await Promise.race([next("stopped"), crashed, deadline]);
      clearTimeout(timer);
      worker.terminate();
    },
  };
}

/**
 * How long the on-demand checkpointer's thread stays after the last write (ms): 10 s, so that it is
 * gone before the idle release's later rounds (docs/decisions/performance-and-bench.md, "The
 * checkpointer's thread goes 10 s after the last write").
 */
export const CHECKPOINTER_IDLE_MS = 10_000;

/** A checkpointer whose thread runs only while writes come (see `onDemandCheckpointer`). */
export interface OnDemandCheckpointer extends Checkpointer {
  /** Tells it a write was committed: starts the thread if it is not running. */
  wrote(): void;
  /** Whether the thread runs now (for tests). */
  readonly running: boolean;
}

/**
 * A checkpointer started by the first write and stopped once `idleMs` pass without one: a server
 * nobody writes to holds no checkpoint thread (a worker isolate is some 10 MB of memory), and one
 * that was busy gives it back when the load ends. If the thread fails to start or fails later,
 * `onFailure` hears why and it is not started again (the writer checkpoints by itself).
 */
export function onDemandCheckpointer(
  path: string,
  opts: { everyMs?: number; idleMs?: number; onFailure?: (message: string) => void } = {},
): OnDemandCheckpointer {
  const idleMs = opts.idleMs ?? CHECKPOINTER_IDLE_MS;
  let current: Promise<Checkpointer | null> | null = null;
  let failed = false;
  let stopped = false;
  let lastWrite = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const onFailure = (message: string) => {
    failed = true;
    opts.onFailure?.(message);
  };
  const retire = async () => {
    const running = current;
    current = null;
    clearInterval(timer);
    timer = undefined;
    await (await running)?.stop();
  };
  return {
    get running() {
      return current !== null;
    },
    wrote() {
      lastWrite = Date.now();
      if (current || failed || stopped) return;
      current = startCheckpointer(path, { everyMs: opts.everyMs, onFailure }).catch((err) => {
        onFailure(String(err));
        return null;
      });
      const every = setInterval(() => {
        if (Date.now() - lastWrite >= idleMs) retire();
      }, Math.max(10, idleMs / 4));
      Deno.unrefTimer(every as unknown as number);
      timer = every;
    },
    async stop() {
      stopped = true;
      await retire();
    },
  };
}
