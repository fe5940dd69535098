/**
 * The SSH listener's sockets: `Deno.listen` connections wrapped as the Node stream ssh2 reads.
 *
 * Deno's `node:net` kept received bytes in the main thread's malloc arena when a server answered
 * what it read with small writes, as ssh2 does: a 50 MB push left 15–20 MB in use for good
 * (docs/decisions/performance-and-bench.md, "The SSH listener on `Deno.listen`"). Reading a
 * `Deno.Conn` into one buffer per connection and handing ssh2 an exact-size copy of each read
 * keeps nothing beyond what ssh2 itself holds.
 */
import { Buffer } from "node:buffer";
import { Duplex } from "node:stream";
import type { BindAddress } from "../config.ts";

/** Bytes asked of the kernel per read: ssh2's packets are at most 32 KiB of data plus framing. */
const READ_SIZE = 64 * 1024;

/** One accepted TCP connection as a Node `Duplex`, with the `net.Socket` members ssh2 reads. */
export class TcpSocket extends Duplex {
  /** The peer's address as the kernel gave it (an IPv4-mapped IPv6 address stays as it is). */
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly remoteFamily: "IPv4" | "IPv6";
  #conn: Deno.TcpConn;
  #buffer: Uint8Array | null = null;
  #reading = false;

  /** Wraps `conn`; nothing is read until the stream is read or gets a `data` listener. */
  constructor(conn: Deno.TcpConn) {
    // A peer's FIN ends our side too, as `net.Socket` does by default.
    super({ allowHalfOpen: false });
    const addr = conn.remoteAddr;
    this.#conn = conn;
    this.remoteAddress = addr.hostname;
    this.remotePort = addr.port;
    this.remoteFamily = addr.hostname.includes(":") ? "IPv6" : "IPv4";
  }

  /** Turns Nagle's algorithm off (`true`) or on. */
  setNoDelay(noDelay = true): this {
    try {
      this.#conn.setNoDelay(noDelay);
    } catch {
      // The connection is already closed: nothing to set.
    }
    return this;
  }

  override _read(): void {
    if (!this.#reading) this.#pump();
  }

  /** Reads until the stream's buffer is full, the peer ends, or the connection fails. */
  async #pump(): Promise<void> {
    this.#reading = true;
    const buffer = this.#buffer ??= new Uint8Array(READ_SIZE);
    try {
      while (!this.destroyed) {
        const n = await this.#conn.read(buffer);
        if (this.destroyed) return;
        if (n === null) {
          this.push(null);
          return;
        }
        // A copy: ssh2 may keep part of a chunk until the rest of its packet arrives.
        if (!this.push(Buffer.from(buffer.subarray(0, n)))) return;
      }
    } catch (err) {
      if (!this.destroyed) this.destroy(err as Error);
    } finally {
      this.#reading = false;
    }
  }

  override _write(
    chunk: Uint8Array,
    _encoding: string,
    callback: (err?: Error | null) => void,
  ): void {
    this.#send(chunk, callback);
  }

  /** Several writes queued behind one in flight leave as one. */
  override _writev(
    chunks: { chunk: Uint8Array }[],
    callback: (err?: Error | null) => void,
  ): void {
    this.#send(Buffer.concat(chunks.map((c) => c.chunk)), callback);
  }

  /** Writes all of `bytes`, then calls `callback` (with the error, if the connection failed). */
  #send(bytes: Uint8Array, callback: (err?: Error | null) => void): void {
    writeAll(this.#conn, bytes).then(() => callback(), (err) => callback(err));
  }

  override _final(callback: (err?: Error | null) => void): void {
    // Half-close: the peer sees end of stream and answers with its own, which ends us.
    this.#conn.closeWrite().then(() => callback(), () => callback());
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.#buffer = null;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
    callback(err);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** A TCP listener handing out `TcpSocket`s. */
export interface TcpListener {
  /** The port it listens on (useful when the bind asked for port 0). */
  port: number;
  /** Stops accepting; connections already accepted carry on. Safe to call twice. */
  close(): void;
}

/**
 * Listens on `bind` and calls `onSocket` with each accepted connection. Rejects (as `Deno.listen`
 * throws) when the address cannot be bound.
 */
export function listenTcp(bind: BindAddress, onSocket: (socket: TcpSocket) => void): TcpListener {
  const listener = Deno.listen({ hostname: bind.hostname, port: bind.port, transport: "tcp" });
  let open = true;
  (async () => {
    while (open) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (!open || err instanceof Deno.errors.BadResource) return;
        // A connection that failed before we took it (reset, out of descriptors): keep listening,
        // after a pause so that a lasting failure does not spin.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      onSocket(new TcpSocket(conn));
    }
  })();
  return {
    port: listener.addr.port,
    close() {
      if (!open) return;
      open = false;
      listener.close();
    },
  };
}
