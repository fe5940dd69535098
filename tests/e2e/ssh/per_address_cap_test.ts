/** SSH: one address may hold at most SERVICE_SSH_MAX_CONNECTIONS_PER_IP connections at once. */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/server.ts";

/** Reads until the server's identification line, or null when the server hangs up first. */
async function banner(conn: Deno.Conn): Promise<string | null> {
  const buf = new Uint8Array(256);
  const n = await conn.read(buf).catch(() => null);
  return n === null ? null : new TextDecoder().decode(buf.subarray(0, n));
}

serverTest("ssh: connections beyond the per-IP cap are dropped, and freed slots are reusable", {
  env: { SERVICE_SSH_MAX_CONNECTIONS_PER_IP: "2" },
}, async (server) => {
  const open = () => Deno.connect({ hostname: "127.0.0.1", port: server.sshPort });
  const a = await open();
  const b = await open();
  assert((await banner(a))?.startsWith("SSH-2.0-"));
  assert((await banner(b))?.startsWith("SSH-2.0-"));
  const c = await open();
  assertEquals(await banner(c), null, "third connection from one IP was served");
  c.close();
  a.close();
  // Once a slot frees up, the address may connect again.
  let again: string | null = null;
  const deadline = Date.now() + 20_000;
  while (again === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    const d = await open();
    again = await banner(d);
    d.close();
  }
  assert(again?.startsWith("SSH-2.0-"), "slot was not freed");
  b.close();
});
