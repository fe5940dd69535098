/** Raw TCP connections to the SSH port from chosen loopback addresses, as pre-auth attackers. */
import net from "node:net";

/** One raw connection; `served` is true when the server sent its SSH identification line. */
export interface RawSsh {
  served: boolean;
  /** True until the connection closes. */
  open(): boolean;
  /** Resolves once the connection is closed (by either side). */
  closed: Promise<void>;
  close(): void;
}

/**
 * Connects to 127.0.0.1:`port` from `from` and, when `send` is given, sends it at once (e.g. an
 * identification line and nothing more). Resolves once the server sent its first bytes or closed
 * the connection without any.
 */
export function rawSshFrom(from: string, port: number, send?: string): Promise<RawSsh> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    let isOpen = true;
    let settled = false;
    const closed = new Promise<void>((done) =>
      socket.once("close", () => {
        isOpen = false;
        done();
        settle(false);
      })
    );
    const settle = (served: boolean) => {
      if (settled) return;
      settled = true;
      resolve({ served, open: () => isOpen, closed, close: () => socket.destroy() });
    };
    socket.on("error", () => {});
    socket.once("connect", () => {
      if (send !== undefined) socket.write(send);
    });
    socket.once("data", (chunk: Uint8Array) => {
      settle(new TextDecoder().decode(chunk).startsWith("SSH-2.0-"));
    });
    // Keep reading (and discarding) so the server's KEXINIT never blocks on a full window.
    socket.on("data", () => {});
  });
}

/**
 * Keeps up to `perAddress` connections open from each address, each sending `send` (or nothing)
 * and then staying silent: a refused or closed one is retried after `retryMs`.
 */
export class PreAuthFlood {
  readonly #held = new Map<string, Set<RawSsh>>();
  #stopped = false;
  readonly #loops: Promise<void>[] = [];

  constructor(
    readonly port: number,
    readonly addresses: string[],
    readonly perAddress: number,
    readonly send: string | undefined,
    readonly retryMs = 200,
  ) {
    for (const from of addresses) {
      this.#held.set(from, new Set());
      for (let i = 0; i < perAddress; i++) this.#loops.push(this.#keep(from));
    }
  }

  /** Connections the server accepted and still holds open, in all or from `from`. */
  held(from?: string): number {
    const sets = from === undefined ? [...this.#held.values()] : [this.#held.get(from)!];
    return sets.reduce((n, set) => n + set.size, 0);
  }

  /** Resolves once `n` connections are held, or throws after `timeoutMs`. */
  async holding(n: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.held() < n) {
      if (Date.now() > deadline) throw new Error(`flood holds ${this.held()}, wanted ${n}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Closes every connection and stops reconnecting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const set of this.#held.values()) for (const c of set) c.close();
    await Promise.all(this.#loops);
  }

  async #keep(from: string): Promise<void> {
    const set = this.#held.get(from)!;
    while (!this.#stopped) {
      const conn = await rawSshFrom(from, this.port, this.send);
      if (conn.served && conn.open() && !this.#stopped) {
        set.add(conn);
        await conn.closed;
        set.delete(conn);
      } else {
        conn.close();
      }
      if (!this.#stopped) await new Promise((r) => setTimeout(r, this.retryMs));
    }
  }
}
