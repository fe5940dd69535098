/**
 * The WAL checkpointer's thread (a Web Worker started by checkpointer.ts): copies committed pages
 * from the write-ahead log into the database file on its own connection, so the writer's COMMITs
 * never do it. PASSIVE checkpoints wait for no reader or writer.
 */
/// <reference lib="deno.worker" />
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** Messages from the app thread. */
export type CheckpointCommand = { type: "start"; path: string; everyMs: number } | { type: "stop" };

/** Messages to the app thread. */
export type CheckpointEvent =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "stopped" };

let db: DatabaseSync | null = null;
let statement: StatementSync | null = null;
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (e: MessageEvent<CheckpointCommand>) => {
  const command = e.data;
  if (command.type === "start") {
    try {
      db = new DatabaseSync(command.path);
      db.exec("PRAGMA busy_timeout = 5000");
      // Prepared once: a statement per tick would hold native memory until a collection.
      statement = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
      checkpoint();
    } catch (err) {
      self.postMessage({ type: "failed", message: String(err) } satisfies CheckpointEvent);
      return;
    }
    timer = setInterval(checkpoint, command.everyMs);
    self.postMessage({ type: "ready" } satisfies CheckpointEvent);
  } else {
    clearInterval(timer);
    statement = null;
    db?.close();
    db = null;
    self.postMessage({ type: "stopped" } satisfies CheckpointEvent);
  }
};

function checkpoint(): void {
  statement?.get();
}
