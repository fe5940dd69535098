/** ssh2 under Deno: its per-packet chacha20 contexts are released, and nothing else changes. */
import { assert, assertEquals, assertThrows } from "../../tests/helpers/assert.ts";
import crypto from "node:crypto";
import { finalizingChacha20, loadWithFinalizingChacha20 } from "./chacha20_release.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const key = crypto.randomBytes(32);
const iv = new Uint8Array(16);
const data = crypto.randomBytes(1000);

Deno.test("a chacha20 cipher gives the same output, then is finalized", () => {
  const create = finalizingChacha20(crypto.createCipheriv as never) as typeof crypto.createCipheriv;
  const cipher = create("chacha20", key, iv);
  const out = cipher.update(data);
  assertEquals(out, crypto.createCipheriv("chacha20", key, iv).update(data));
  assertThrows(() => cipher.update(data));
});

Deno.test("a chacha20 decipher undoes the cipher and is finalized too", () => {
  const create = finalizingChacha20(
    crypto.createDecipheriv as never,
  ) as typeof crypto.createDecipheriv;
  const encrypted = crypto.createCipheriv("chacha20", key, iv).update(data);
  const decipher = create("chacha20", key, iv);
  assertEquals(decipher.update(encrypted), data);
  assertThrows(() => decipher.update(encrypted));
});

Deno.test("other algorithms are left as node:crypto made them", () => {
  const create = finalizingChacha20(crypto.createCipheriv as never) as typeof crypto.createCipheriv;
  const cipher = create("aes-128-ctr", key.subarray(0, 16), iv);
  cipher.update(data);
  cipher.update(data);
  cipher.final();
});

Deno.test("node:crypto gets its own functions back once the load settles, even when it fails", async () => {
  const before = [crypto.createCipheriv, crypto.createDecipheriv];
  let during: unknown[] = [];
  await loadWithFinalizingChacha20(() => {
    during = [crypto.createCipheriv, crypto.createDecipheriv];
    return Promise.reject(new Error("no such module"));
  }).catch(() => {});
  assert(during[0] !== before[0] && during[1] !== before[1]);
  assertEquals([crypto.createCipheriv, crypto.createDecipheriv], before);
});

Deno.test("ssh2, loaded by Signet, finalizes every chacha20 context of an SSH session", async () => {
  // A fresh process, so that ssh2 loads there through loadSsh2 (and nothing loaded it before):
  // an ssh2 server and client over chacha20-poly1305 move 1 MiB, and every chacha20 cipher
  // either side made is counted when made and when finalized.
  const script = `
    import crypto from "node:crypto";
    import { loadSsh2 } from "${ROOT}server/ssh/ssh2.ts";
    let created = 0, finalized = 0;
    for (const name of ["createCipheriv", "createDecipheriv"]) {
      const create = crypto[name];
      crypto[name] = (algorithm, ...rest) => {
        const cipher = create(algorithm, ...rest);
        if (algorithm === "chacha20") {
          created++;
          const final = cipher.final;
          cipher.final = function () { finalized++; return final.call(this); };
        }
        return cipher;
      };
    }
    const ssh2 = await loadSsh2();
    const hostKey = ssh2.utils.generateKeyPairSync("ed25519").private;
    const server = new ssh2.Server({ hostKeys: [hostKey] }, (conn) => {
      conn.on("authentication", (ctx) => ctx.accept());
      conn.on("ready", () => conn.on("session", (accept) => accept().on("exec", (accept) => {
        const channel = accept();
        channel.end(new Uint8Array(1 << 20));
        channel.exit(0);
      })));
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const received = await new Promise((resolve, reject) => {
      const client = new ssh2.Client();
      client.on("error", reject);
      client.on("ready", () => client.exec("x", (err, stream) => {
        if (err) return reject(err);
        let n = 0;
        stream.on("data", (d) => n += d.length);
        stream.on("close", () => { client.end(); resolve(n); });
      }));
      client.connect({
        host: "127.0.0.1", port: server.address().port, username: "git", password: "x",
        algorithms: { cipher: ["chacha20-poly1305@openssh.com"] },
      });
    });
    server.close();
    console.log(JSON.stringify({ received, created, finalized }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", `${ROOT}deno.json`, script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  assertEquals(result.received, 1 << 20);
  // 1 MiB in packets of at most 32 KiB: three contexts per packet on each side.
  assert(result.created > 6 * 32, JSON.stringify(result));
  assertEquals(result.finalized, result.created);
});
