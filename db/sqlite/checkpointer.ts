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
