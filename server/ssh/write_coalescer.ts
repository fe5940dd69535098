/**
 * One socket write per burst instead of one per piece.
 *
 * ssh2 writes every encrypted packet in three or four pieces (length, payload, MAC). On a socket
 * with TCP_NODELAY each piece becomes its own TCP segment, and on a Node stream socket (Deno's
 * `node:net`, or tcp_socket.ts) every write after the first waits for the previous one's
 * completion to come back through the event loop: a one-line reply cost three segments, three client wake-ups and up to three event-loop
 * turns. Pieces written in the same synchronous run are joined and written once, at the end of
 * that run (a microtask), so a reply leaves as one segment and a 32 KiB data packet as one write.
 */
import { Buffer } from "node:buffer";
import type { Duplex as Socket } from "node:stream";

/** Wraps `socket.write` and `socket.end`; call before handing the socket to the SSH library. */
export function coalesceWrites(socket: Socket): void {
  // deno-lint-ignore no-explicit-any
  type Args = any[];
  const write = socket.write.bind(socket) as (...args: Args) => boolean;
  const end = socket.end.bind(socket) as (...args: Args) => Socket;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let callbacks: ((err?: Error | null) => void)[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    const done = callbacks;
    pending = [];
    pendingBytes = 0;
    callbacks = [];
    if (socket.destroyed) return;
    if (done.length === 0) write(chunk);
    else write(chunk, (err?: Error | null) => done.forEach((cb) => cb(err)));
  };

  socket.write = ((chunk: Uint8Array | string, ...rest: Args) => {
    const cb = rest.find((a) => typeof a === "function");
    // ssh2 writes Buffers only; a string is taken as UTF-8.
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    pending.push(bytes);
    pendingBytes += bytes.length;
    if (cb) callbacks.push(cb);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
    return true;
  }) as typeof socket.write;

  socket.end = ((...args: Args) => {
    flush();
    return end(...args);
  }) as typeof socket.end;
}
