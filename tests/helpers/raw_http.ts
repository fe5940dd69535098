/** A raw TCP HTTP client for tests that must control every byte and pause (slow clients). */
import net from "node:net";
import { resolvesWithin } from "./wait.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** One parsed response. */
export interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

/** A raw connection to 127.0.0.1:`port`. */
export class RawHttp {
  #buf = new Uint8Array(0);
  #closed = false;
  #reading: Promise<void> | null = null;

  private constructor(readonly conn: Deno.TcpConn) {}

  /** Connects to 127.0.0.1:`port`. */
  static async open(port: number): Promise<RawHttp> {
    return new RawHttp(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /** Sends `text` (throws if the server already closed the connection). */
  async send(text: string | Uint8Array): Promise<void> {
    const bytes = typeof text === "string" ? enc.encode(text) : text;
    let off = 0;
    while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
  }

  /** Sends `text` one byte every `gapMs`; stops early (returns false) when the server closed. */
  async drip(text: string, gapMs: number): Promise<boolean> {
    for (const byte of enc.encode(text)) {
      try {
        await this.send(new Uint8Array([byte]));
      } catch {
        return false;
      }
      if (this.#closed) return false;
      await new Promise((r) => setTimeout(r, gapMs));
      if (this.#closed) return false;
    }
    return true;
  }

  /** Reads one response (Content-Length or chunked body). */
  async response(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const text = dec.decode(this.#buf);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const headers = text.slice(0, end);
        const head = enc.encode(text.slice(0, end + 4)).length;
        const body = /\r\ntransfer-encoding: *chunked/i.test(headers)
          ? dechunk(this.#buf.subarray(head))
          : fixedLength(this.#buf.subarray(head), headers);
        if (body) {
          this.#buf = this.#buf.slice(head + body.used);
          return { status: Number(headers.split(" ")[1]), headers, body: dec.decode(body.bytes) };
        }
      }
      if (this.#closed) throw new Error(`connection closed mid-response: ${text}`);
      if (!(await this.#readSome(deadline - Date.now()))) {
        throw new Error(`no complete response within ${timeoutMs} ms: ${text}`);
      }
    }
  }

  /**
   * Waits up to `limitMs` for the server to close; returns the ms it took, or null when the
   * connection is still open. Whatever arrives meanwhile is kept for `pending()`.
   */
  async closedWithin(limitMs: number): Promise<number | null> {
    const started = performance.now();
    const deadline = Date.now() + limitMs;
    while (!this.#closed) {
      if (!(await this.#readSome(deadline - Date.now()))) return null;
    }
    return performance.now() - started;
  }

  /** How many bytes were received and not yet consumed by `response()`. */
  pendingBytes(): number {
    return this.#buf.length;
  }

  /** Bytes received and not yet consumed by `response()`, as text. */
  pending(): string {
    return dec.decode(this.#buf);
  }

  /** Closes our side. */
  close(): void {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }

  /** Reads once (or marks closed); false when nothing happened within `ms`. */
  async #readSome(ms: number): Promise<boolean> {
    if (ms <= 0) return false;
    this.#reading ??= (async () => {
      const chunk = new Uint8Array(65536);
      let n: number | null = null;
      try {
        n = await this.conn.read(chunk);
      } catch { /* reset counts as closed */ }
      if (n === null) this.#closed = true;
      else {
        const grown = new Uint8Array(this.#buf.length + n);
        grown.set(this.#buf);
        grown.set(chunk.subarray(0, n), this.#buf.length);
        this.#buf = grown;
      }
      this.#reading = null;
    })();
    return await resolvesWithin(this.#reading, ms);
  }
}

/** A Content-Length body at the start of `buf`, or null when not all of it is there yet. */
function fixedLength(buf: Uint8Array, headers: string) {
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
  return buf.length >= length ? { bytes: buf.subarray(0, length), used: length } : null;
}

/** A complete chunked body at the start of `buf` (decoded), or null when incomplete. */
function dechunk(buf: Uint8Array) {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (true) {
    const lf = buf.indexOf(10, at);
    if (lf < 0) return null;
    const size = parseInt(dec.decode(buf.subarray(at, lf)), 16);
    if (size === 0) {
      if (buf.length < lf + 3) return null;
      const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) bytes.set(p, (o += p.length) - p.length);
      return { bytes, used: lf + 3 };
    }
    if (buf.length < lf + 1 + size + 2) return null;
    parts.push(buf.subarray(lf + 1, lf + 1 + size));
    at = lf + 1 + size + 2;
  }
}

/**
 * GET `path` from 127.0.0.1:`port` over a connection from source address `from`, with extra
 * `headers`; the status.
 */
export function statusFrom(
  from: string,
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    let text = "";
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    socket.on("connect", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n${extra}Connection: close\r\n\r\n`);
    });
    socket.on("data", (d) => (text += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (status) resolve(status);
      else reject(new Error(`no status from ${from}: ${JSON.stringify(text.slice(0, 200))}`));
    });
  });
}

/**
 * Sends one `method path` request with a JSON `body` to 127.0.0.1:`port` over a connection from
 * source address `from`; the status and the parsed JSON answer ({} when not JSON).
 */
export function requestFrom(
  from: string,
  port: number,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    const payload = body === undefined ? "" : JSON.stringify(body);
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    const chunks: Uint8Array[] = [];
    socket.on("connect", () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: test\r\n${extra}Connection: close\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${enc.encode(payload).length}` +
          `\r\n\r\n${payload}`,
      );
    });
    socket.on("data", (d) => chunks.push(new Uint8Array(d)));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = dec.decode(new Uint8Array(chunks.flatMap((c) => [...c])));
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (!status) {
        reject(new Error(`no status from ${from}: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const head = text.indexOf("\r\n\r\n");
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text.slice(head + 4));
      } catch { /* not JSON */ }
      resolve({ status, body: parsed });
    });
  });
}

/** The response to `request` (raw bytes) as the first request of a fresh connection. */
export async function firstAnswer(port: number, request: string): Promise<RawResponse> {
  const conn = await RawHttp.open(port);
  try {
    await conn.send(request);
    return await conn.response();
  } finally {
    conn.close();
  }
}
