/**
 * holdKexInitUntilPeerSpeaks: what follows our version line waits for the client's first packet.
 * The fallback here is 3 s, not the server's 250 ms, so that what must not have arrived yet is
 * checked seconds before it may, and what must arrive is waited for: a busy machine that delays a
 * timer by a second changes nothing.
 */
import { createServer, type Socket } from "node:net";
import { holdKexInitUntilPeerSpeaks } from "./kexinit_hold.ts";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { SERVER_TEST } from "../../tests/helpers/server.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enc = new TextEncoder();
const FALLBACK_MS = 3000;

/** Resolves with the ms waited once `text()` equals `want`; throws after 10 s. */
async function until(text: () => string, want: string): Promise<number> {
  const start = performance.now();
  while (text() !== want) {
    if (performance.now() - start > 10_000) {
      throw new Error(`after 10 s: ${JSON.stringify(text())}, not ${JSON.stringify(want)}`);
    }
    await sleep(10);
  }
  return performance.now() - start;
}

/** A server that writes a version line and a "KEXINIT" at once, as an SSH library does. */
async function speakingServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    holdKexInitUntilPeerSpeaks(socket, FALLBACK_MS);
    socket.write(enc.encode("SSH-2.0-Test\r\n"));
    socket.write(enc.encode("KEXINIT-FROM-SERVER"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Collects what a raw connection receives, in the background. */
function collect(conn: Deno.TcpConn): { text(): string; done: Promise<void> } {
  let text = "";
  const done = (async () => {
    const buf = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  })();
  return { text: () => text, done };
}

/**
 * Sends `bytes` (ending with the client's first packet) on `conn`; the server's KEXINIT must follow
 * at once, not after the fallback. Then closes the connection.
 */
async function releasedBy(conn: Deno.TcpConn, from: ReturnType<typeof collect>, bytes: string) {
  const sent = performance.now();
  await conn.write(enc.encode(bytes));
  await until(from.text, "SSH-2.0-Test\r\nKEXINIT-FROM-SERVER");
  assert(performance.now() - sent < FALLBACK_MS, "released by the packet, not the fallback");
  conn.close();
  await from.done;
}

Deno.test({
  name: "KEXINIT waits for the client's first packet, or for the fallback timer",
  ...SERVER_TEST,
  async fn() {
    const server = await speakingServer();
    try {
      // A client that speaks first.
      const a = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      const fromA = collect(a);
      await until(fromA.text, "SSH-2.0-Test\r\n");
      await a.write(enc.encode("SSH-2.0-Client\r\n"));
      await sleep(120);
      assertEquals(fromA.text(), "SSH-2.0-Test\r\n", "held until the client's packet");
      await releasedBy(a, fromA, "CLIENT-KEXINIT");

      // Version line and packet in one segment release at once too.
      const b = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      const fromB = collect(b);
      await releasedBy(b, fromB, "SSH-2.0-Client\r\nCLIENT-KEXINIT");

      // A client that waits for the server still gets everything, after the fallback.
      const cStart = performance.now();
      const c = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      const fromC = collect(c);
      await c.write(enc.encode("SSH-2.0-Client\r\n"));
      await sleep(100);
      assert(!fromC.text().includes("KEXINIT"), "not before the fallback");
      await until(fromC.text, "SSH-2.0-Test\r\nKEXINIT-FROM-SERVER");
      // The fallback timer starts after the connection was accepted, so after cStart.
      const waited = performance.now() - cStart;
      assert(waited >= FALLBACK_MS - 5, `released after ${waited} ms, before the fallback`);
      c.close();
      await fromC.done;
    } finally {
      await server.close();
    }
  },
});
