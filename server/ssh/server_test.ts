/**
 * The SSH server sends its KEXINIT only once the client's has begun to arrive (or after 250 ms),
 * so the client's next small packet is not held by Nagle waiting on a delayed ACK (40 ms on
 * Linux). And the handshake still completes for a real client either way.
 *
 * The server's fallback is 250 ms, shorter than a busy machine may delay a timer, so the test does
 * not guess from sleeps: the fallback cannot fire before FALLBACK_MS after the test began to
 * connect, so a KEXINIT that arrives earlier was not sent by it. An attempt whose KEXINIT came
 * later proves nothing either way and is repeated; a server that does not hold its KEXINIT, or
 * holds it past the client's packet, fails every attempt.
 */
import { setQuiet } from "../log.ts";
import { DEFAULT_SSH_LIMITS, startSshServer } from "./server.ts";
import { assert } from "../../tests/helpers/assert.ts";
import { inProcessContext } from "../../tests/helpers/in_process.ts";
import { SERVER_TEST } from "../../tests/helpers/server.ts";

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
/** The server's fallback for a client that waits (server/ssh/kexinit_hold.ts). */
const FALLBACK_MS = 250;
const ATTEMPTS = 20;

/** Waits until `done()`; throws after 10 s. */
async function until(done: () => boolean): Promise<void> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > 10_000) throw new Error("nothing arrived in 10 s");
    await sleep(5);
  }
}

Deno.test({
  name: "SSH KEXINIT waits for the client's, and is sent anyway after a short wait",
  ...SERVER_TEST,
  async fn() {
    const server = await startSshServer(ctx, config.sshBind!, DEFAULT_SSH_LIMITS);
    try {
      const enc = new TextEncoder();
      // A client that speaks first: nothing beyond the banner until its first packet arrives.
      let proven = false;
      for (let attempt = 1; attempt <= ATTEMPTS && !proven; attempt++) {
        const connecting = performance.now();
        const a = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
        const fromA = collect(a);
        await until(() => fromA.bytes() > 0);
        const banner = fromA.bytes();
        assert(banner < 64, `only the version line first, got ${banner} bytes`);
        await a.write(enc.encode("SSH-2.0-Test_1.0\r\n"));
        // Time for a server that does not hold its KEXINIT to send it (it writes both at once).
        await sleep(50);
        const held = fromA.bytes() === banner;
        // The client's first binary packet (an SSH_MSG_IGNORE, valid at any time).
        const sent = performance.now();
        await a.write(new Uint8Array([0, 0, 0, 12, 6, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        await until(() => fromA.bytes() > banner);
        const kexinit = fromA.bytesAt()[1] - connecting;
        a.close();
        await fromA.closed;
        if (kexinit < FALLBACK_MS) {
          // Not the fallback: either the server did not wait for the client at all, or the
          // client's packet released it.
          assert(held, `KEXINIT ${kexinit.toFixed(0)} ms after connecting, before the client's`);
          assert(sent - connecting < kexinit, "KEXINIT follows the client's first packet");
          proven = true;
        } else {
          console.log(`attempt ${attempt}: KEXINIT after ${kexinit.toFixed(0)} ms, inconclusive`);
        }
      }
      assert(proven, `no attempt in ${ATTEMPTS} got its KEXINIT before the fallback could fire`);

      // A client that waits for the server: KEXINIT still comes, after the short hold.
      const connecting = performance.now();
      const b = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      const fromB = collect(b);
      await until(() => fromB.bytes() > 0);
      await b.write(enc.encode("SSH-2.0-Test_1.0\r\n"));
      await until(() => fromB.bytes() > 64);
      const waited = fromB.bytesAt().at(-1)! - connecting;
      assert(waited >= FALLBACK_MS - 5, `KEXINIT after ${waited} ms, before the fallback`);
      b.close();
      await fromB.closed;
    } finally {
      await server.close();
    }
  },
});
