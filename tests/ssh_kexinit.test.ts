/**
 * The SSH server sends its KEXINIT only once the client's has begun to arrive (or after 250 ms),
 * so the client's next small packet is not held by Nagle waiting on a delayed ACK (40 ms on
 * Linux). And the handshake still completes for a real client either way.
 */
import { setQuiet } from "../server/log.ts";
import { DEFAULT_SSH_LIMITS, startSshServer } from "../server/ssh/server.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { inProcessContext } from "./helpers/in_process.ts";

setQuiet(true);
const { ctx, config } = await inProcessContext("signet-ssh-kexinit-");

/** A raw connection whose bytes are collected in the background, with arrival times. */
function collect(
  conn: Deno.TcpConn,
): { bytes(): number; bytesAt(): number[]; closed: Promise<void> } {
  const arrivals: [number, number][] = [];
  const closed = (async () => {
    const buf = new Uint8Array(65536);
    while (true) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return;
      arrivals.push([performance.now(), n]);
    }
  })();
  return {
    bytes: () => arrivals.reduce((t, [, n]) => t + n, 0),
    bytesAt: () => arrivals.map(([t]) => t),
    closed,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test({
  name: "SSH KEXINIT waits for the client's, and is sent anyway after a short wait",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startSshServer(ctx, config.sshBind!, DEFAULT_SSH_LIMITS);
    try {
      const enc = new TextEncoder();
      // A client that speaks first: nothing beyond the banner until its first packet arrives.
      const a = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      const fromA = collect(a);
      await sleep(50);
      const banner = fromA.bytes();
      assert(banner > 0 && banner < 64, `only the version line first, got ${banner} bytes`);
      await a.write(enc.encode("SSH-2.0-Test_1.0\r\n"));
      await sleep(120);
      assertEquals(fromA.bytes(), banner, "KEXINIT must wait for the client's");
      // The client's first binary packet (an SSH_MSG_IGNORE, valid at any time).
      const sent = performance.now();
      await a.write(new Uint8Array([0, 0, 0, 12, 6, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
      await sleep(80);
      assert(fromA.bytes() > banner, "KEXINIT follows the client's first packet");
      assert(fromA.bytesAt()[1] - sent < 60, "and at once, not after the fallback timer");
      a.close();
      await fromA.closed;

      // A client that waits for the server: KEXINIT still comes, after the short hold.
      const b = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      const fromB = collect(b);
      await sleep(50);
      await b.write(enc.encode("SSH-2.0-Test_1.0\r\n"));
      await sleep(600);
      assert(fromB.bytes() > 64, "KEXINIT is sent without the client's");
      b.close();
      await fromB.closed;
    } finally {
      await server.close();
    }
  },
});
