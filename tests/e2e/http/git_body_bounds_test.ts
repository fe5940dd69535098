/**
 * Smart HTTP request bodies are bounded (issue 22): an upload-pack request over 10 MiB, sent plain
 * or inflating to it from gzip, and a gzip bomb are refused with 413 and a JSON error without the
 * server holding the inflated bytes; invalid gzip is 400; nothing is left in the spill directory
 * after any refused request or a failed push. Real negotiations of a few MB still work.
 */
import net from "node:net";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { concatBytes } from "../../../protocol/bytes.ts";
import { commitFile, packObjects, receivePackCommands } from "../../helpers/git.ts";

const MB = 1024 * 1024;
const enc = new TextEncoder();

/** POSTs `body` over a raw socket (chunked or with Content-Length); the response, parsed. */
function post(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  chunked = false,
): Promise<{ status: number; body: string; headers: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        if (!error) return;
        done = true;
        socket.destroy();
        return reject(new Error(`no response: ${error.message} ${JSON.stringify(text)}`));
      }
      const head = text.slice(0, end);
      const rest = received.subarray(end + 4);
      let payload: Buffer | null = null;
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (length) {
        if (rest.length >= Number(length[1])) payload = rest.subarray(0, Number(length[1]));
      } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
        if (rest.toString("latin1").includes("\r\n0\r\n\r\n") || error) payload = dechunk(rest);
      } else if (error) payload = rest;
      if (!payload) return;
      done = true;
      socket.destroy();
      resolve({
        status: Number(head.split(" ")[1]),
        headers: head,
        body: payload.toString("latin1"),
      });
    };
    socket.on("data", (d) => {
      received = Buffer.concat([received, d]);
      finish();
    });
    socket.on("error", (err) => finish(err));
    socket.on("close", () => finish(new Error("closed")));
    socket.on("connect", async () => {
      const framing = chunked
        ? "Transfer-Encoding: chunked\r\n"
        : `Content-Length: ${body.length}\r\n`;
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
      socket.write(`POST ${path} HTTP/1.1\r\nHost: test\r\n${extra}${framing}\r\n`);
      for (let off = 0; off < body.length && !done && !socket.destroyed; off += 64 * 1024) {
        const piece = body.subarray(off, off + 64 * 1024);
        const data = chunked
          ? Buffer.concat([
            Buffer.from(`${piece.length.toString(16)}\r\n`),
            piece,
            Buffer.from("\r\n"),
          ])
          : piece;
        if (!socket.write(data)) await new Promise((r) => socket.once("drain", r));
      }
      if (chunked && !done && !socket.destroyed) socket.write("0\r\n\r\n");
    });
  });
}

function dechunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < buf.length) {
    const lf = buf.indexOf(10, at);
    if (lf < 0) break;
    const size = parseInt(buf.subarray(at, lf).toString("latin1"), 16);
    if (!size) break;
    parts.push(buf.subarray(lf + 1, lf + 1 + size));
    at = lf + 1 + size + 2;
  }
  return Buffer.concat(parts);
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `count` pkt-lines `have <random oid>`, as git sends them (gzip shrinks them ~2x). */
function haves(count: number): Uint8Array {
  const out = new Uint8Array(count * 50);
  const hex = enc.encode("0123456789abcdef");
  const random = crypto.getRandomValues(new Uint8Array(Math.min(count * 40, 65536)));
  for (let i = 0; i < count; i++) {
    out.set(enc.encode("0032have "), i * 50);
    for (let j = 0; j < 40; j++) {
      out[i * 50 + 9 + j] = hex[random[(i * 40 + j) % random.length] & 15];
    }
    out[i * 50 + 49] = 10;
  }
  return out;
}

function join(...parts: Uint8Array[]): Uint8Array {
  return concatBytes(parts);
}

/** Peak resident memory of process `pid`, bytes. */
function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

serverTest(
  "upload-pack request bodies are bounded; refused bodies leave no file",
  {},
  async (server, t) => {
    const home = await Deno.makeTempDir({ prefix: "signet-bodies-" });
    const { token } = await userWithRepo(server, "alice", "repo");
    const env = gitEnv(home);
    const work = `${home}/work`;
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    const head = await commitFile(work, env, "f", "hello\n", "one");
    const pushUrl = `${server.httpUrl.replace("http://", `http://alice:${token}@`)}/alice/repo`;
    await runOk("git", ["push", "-q", pushUrl, "main"], { cwd: work, env });

    const path = "/alice/repo.git/git-upload-pack";
    const headers = { "Content-Type": "application/x-git-upload-pack-request" };
    const gzipped = { ...headers, "Content-Encoding": "gzip" };
    const spill = `${server.instanceDir}/tmp`;
    const spillFiles = () => {
      try {
        return [...Deno.readDirSync(spill)].map((e) => e.name);
      } catch {
        return [];
      }
    };
    /** A v0 fetch of main with `count` haves: what git sends after some negotiation rounds. */
    const negotiation = (count: number) =>
      join(
        enc.encode(`0032want ${head}\n`),
        enc.encode("0000"),
        haves(count),
        enc.encode("0009done\n"),
      );
    const refused = (
      res: { status: number; body: string; headers: string },
      status: number,
      text: string,
    ) => {
      assertEquals(res.status, status, res.body);
      assertStringIncludes(JSON.parse(res.body).error, text);
      assertStringIncludes(res.headers.toLowerCase(), "connection: close");
      assertEquals(spillFiles(), [], "a spill file was left behind");
    };

    await t.step("real negotiations of a few MB are served, plain and gzip", async () => {
      const body = negotiation(100_000); // 5 MB
      const plain = await post(server.httpPort, path, headers, body, true);
      assertEquals(plain.status, 200, plain.body);
      assertStringIncludes(plain.body, "NAK");
      const zipped = await post(server.httpPort, path, gzipped, await gzip(body));
      assertEquals(zipped.status, 200, zipped.body);
      assertStringIncludes(zipped.body, "NAK");
    });

    await t.step("a plain 50 MB body is refused with 413, with or without a length", async () => {
      const body = negotiation(1_000_000);
      for (const chunked of [false, true]) {
        const res = await post(server.httpPort, path, headers, body, chunked);
        refused(res, 413, "request body over the limit of 10485760 bytes");
      }
    });

    await t.step("gzip inflating past 10 MiB is refused with 413", async () => {
      const body = await gzip(negotiation(240_000)); // 12 MB inflated, ~6 MB sent
      assert(body.length > 4 * MB && body.length < 10 * MB, `${body.length} bytes of gzip`);
      const res = await post(server.httpPort, path, gzipped, body);
      refused(res, 413, "request body over the limit");
    });

    await t.step("a gzip bomb is refused with 413 before it is inflated", async () => {
      // ~100 MB of one have line, ~600 KB of gzip.
      const line = enc.encode(`0032have ${"0".repeat(40)}\n`);
      const inflated = new Uint8Array(2_000_000 * line.length);
      for (let i = 0; i < 2_000_000; i++) inflated.set(line, i * line.length);
      const bomb = await gzip(inflated);
      assert(bomb.length < MB, `${bomb.length} bytes of gzip`);
      const before = peakRss(server.pid);
      const res = await post(server.httpPort, path, gzipped, bomb);
      refused(res, 413, "inflates more than 32 times");
      const grown = peakRss(server.pid) - before;
      assert(grown < 40 * MB, `the server's peak memory grew by ${Math.round(grown / MB)} MB`);
    });

    await t.step("invalid gzip is refused with 400", async () => {
      const res = await post(server.httpPort, path, gzipped, negotiation(1000));
      refused(res, 400, "not valid gzip");
    });

    await t.step("a push git refuses while its body spills leaves no file", async () => {
      // 30 MB arriving faster than git reads it, refused by git at its first bytes.
      const garbage = crypto.getRandomValues(new Uint8Array(65536));
      const body = new Uint8Array(30 * MB);
      for (let off = 0; off < body.length; off += garbage.length) body.set(garbage, off);
      const res = await post(server.httpPort, "/alice/repo.git/git-receive-pack", {
        "Content-Type": "application/x-git-receive-pack-request",
        Authorization: `Bearer ${token}`,
      }, body);
      assert(res.status === 200 || res.status >= 400 && res.status < 500, `${res.status}`);
      const deadline = Date.now() + 10_000;
      while (spillFiles().length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assertEquals(spillFiles(), [], "a spill file was left behind");
    });

    await t.step(
      "a gzip push works; a gzip bomb push fails without inflating in memory",
      async () => {
        await Deno.writeTextFile(`${work}/f`, "hello again\n");
        await runOk("git", ["commit", "-q", "-am", "two"], { cwd: work, env });
        const next = (await runOk("git", ["rev-parse", "HEAD"], { cwd: work, env })).trim();
        const pack = await packObjects(work, env, [next, `^${head}`]);
        const commands = receivePackCommands(head, next, "refs/heads/main");
        const pushHeaders = {
          "Content-Type": "application/x-git-receive-pack-request",
          "Content-Encoding": "gzip",
          Authorization: `Bearer ${token}`,
        };
        const receivePack = "/alice/repo.git/git-receive-pack";
        const ok = await post(
          server.httpPort,
          receivePack,
          pushHeaders,
          await gzip(join(commands, pack)),
        );
        assertEquals(ok.status, 200, ok.body);
        assertStringIncludes(ok.body, "ok refs/heads/main");
        const remote = await runOk("git", ["ls-remote", `${server.httpUrl}/alice/repo`, "main"], {
          env,
        });
        assertEquals(remote.split(/\s/)[0], next);
        // A "pack" of 400 MB of zeros, ~400 KB of gzip.
        const zeros = new Uint8Array(400 * MB);
        const bomb = await gzip(join(commands, enc.encode("PACK"), zeros));
        const before = peakRss(server.pid);
        const res = await post(server.httpPort, receivePack, pushHeaders, bomb);
        assert(res.status === 200 || res.status >= 400 && res.status < 500, `${res.status}`);
        const grown = peakRss(server.pid) - before;
        // Inflated in memory, the 400 MB would show whole. Streamed, what the pipes to git hold at
        // their peak shows, with the inflated chunks V8 has not collected yet (the server forces no
        // collection below 128 MB of them: docs/decisions/performance-and-bench.md, "Transfers: no
        // full collection while they stream"): 15-58 MB over 5 runs here, 3 of them at once beside
        // a busy loop; a 200 MB bomb grew it by up to 106 MB in a CI run. The bound sits at half
        // the bomb.
        assert(grown < 200 * MB, `the server's peak memory grew by ${Math.round(grown / MB)} MB`);
        const deadline = Date.now() + 10_000;
        while (spillFiles().length > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
        }
        assertEquals(spillFiles(), [], "a spill file was left behind");
      },
    );

    await t.step("git still clones and fetches", async () => {
      await runOk("git", ["clone", "-q", `${server.httpUrl}/alice/repo`, `${home}/clone`], {
        env,
      });
      await runOk("git", ["fetch", "-q"], { cwd: `${home}/clone`, env });
    });
  },
);
