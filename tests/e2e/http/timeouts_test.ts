/**
 * HTTP header and idle timeouts (the connection guard) on the real server, with short timeouts:
 * slow-loris headers, a slow second request on a keep-alive connection, idle keep-alive
 * connections and oversized header blocks are cut off; slow-but-steady bodies, requests waiting on
 * the server, git clone and push still work; rate limits still key on the real client address;
 * SERVICE_HTTP_HEADER_TIMEOUT=0 SERVICE_HTTP_IDLE_TIMEOUT=0 serves without the guard.
 *
 * Timeouts of 1 s (headers) and 5 s (idle) keep it short, but every bound has seconds of margin:
 * "not closed yet" is checked seconds before the limit, "closed" is waited for up to 10 s past it,
 * so a busy machine that delays a timer or a packet by a second fails nothing.
 */
import { basename } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, userWithRepo } from "../../../testing/accounts.ts";
import { RawHttp, statusFrom } from "../../helpers/raw_http.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import {
  commitFile,
  commitRandomFile,
  packObjects,
  receivePackCommands,
  uploadPackWant,
} from "../../helpers/git.ts";

const HEADER_S = 1;
const IDLE_S = 5;
/** How late past its limit a close may come on a busy machine and still count. */
const LATE_MS = 10_000;
const GET = "GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n";

/**
 * Resolves once a process runs whose command line names `program` and every one of `parts` (the
 * test server's own data directory among them: other tests, in parallel, run git on repositories
 * of the same name).
 */
async function gitRunning(program: string, parts: string[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      let command = "";
      try {
        command = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      } catch {
        continue; // it ended meanwhile
      }
      if (command.includes(program) && parts.every((part) => command.includes(part))) return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${program} of ${parts.join(", ")} started within ${timeoutMs} ms`);
}

serverTest("HTTP header and idle timeouts", {
  env: {
    SERVICE_HTTP_HEADER_TIMEOUT: String(HEADER_S),
    SERVICE_HTTP_IDLE_TIMEOUT: String(IDLE_S),
    SERVICE_GIT_CONCURRENCY: "1",
    SERVICE_RATE_LIMITS: "on",
    SERVICE_RATE_LIMIT_NONCE_IP: "3/1",
  },
}, async (server, t) => {
  const port = server.httpPort;

  await t.step("partial headers are cut off after the header timeout, with 408", async () => {
    const t0 = performance.now(); // the server's clock starts later, at accept
    const c = await RawHttp.open(port);
    await c.send("GET /api/health HTTP/1.1\r\nHost: test\r\n");
    assert((await c.closedWithin(HEADER_S * 1000 + LATE_MS)) !== null, "still open");
    const ms = performance.now() - t0;
    assert(ms >= HEADER_S * 1000 - 20 && ms < HEADER_S * 1000 + LATE_MS, `closed after ${ms} ms`);
    assertStringIncludes(c.pending(), "HTTP/1.1 408 ");
    assertStringIncludes(c.pending(), '{"error":"request header timeout"}');
    c.close();
  });

  await t.step("a connection that never sends a byte is cut off too", async () => {
    const c = await RawHttp.open(port);
    const ms = await c.closedWithin(HEADER_S * 1000 + LATE_MS);
    assert(ms !== null, "the connection is still open");
    c.close();
  });

  await t.step(
    "a second request's headers dripped on a keep-alive connection are cut off",
    async () => {
      const c = await RawHttp.open(port);
      await c.send(GET);
      assertEquals((await c.response()).status, 200);
      // One byte every 100 ms: never idle, but the header block would take ~25 s.
      const started = performance.now();
      const dripped = c.drip(
        `GET /api/health HTTP/1.1\r\nHost: test\r\nX-Slow: ${"z".repeat(200)}\r\n\r\n`,
        100,
      );
      const ms = await c.closedWithin(HEADER_S * 1000 + LATE_MS);
      assert(ms !== null, "the connection is still open");
      assertEquals(await dripped, false, "the whole header block got through");
      const elapsed = performance.now() - started;
      assert(elapsed < HEADER_S * 1000 + LATE_MS, `closed after ${elapsed} ms`);
      c.close();
    },
  );

  await t.step("an idle keep-alive connection is closed after the idle timeout", async () => {
    const c = await RawHttp.open(port);
    await c.send(GET);
    assertEquals((await c.response()).status, 200);
    // Longer than the header timeout between requests is fine: that clock starts at a byte.
    assertEquals(await c.closedWithin(HEADER_S * 1000 + 1500), null);
    const t0 = performance.now(); // the server's idle clock starts later, at its response
    await c.send(GET);
    assertEquals((await c.response()).status, 200);
    assert((await c.closedWithin(IDLE_S * 1000 + LATE_MS)) !== null, "the idle one is open");
    const ms = performance.now() - t0;
    assert(ms >= IDLE_S * 1000 - 20 && ms < IDLE_S * 1000 + LATE_MS, `closed after ${ms} ms`);
    assertEquals(c.pending(), "", "an idle connection is closed without a response");
    c.close();
  });

  await t.step("a header block over 64 KiB gets 431 and the connection is closed", async () => {
    const c = await RawHttp.open(port);
    await c.send(`GET /api/health HTTP/1.1\r\nHost: test\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`)
      .catch(() => {/* the server may close while we still write */});
    const ms = await c.closedWithin(5000);
    assert(ms !== null);
    assertStringIncludes(c.pending(), "HTTP/1.1 431 ");
    assertStringIncludes(c.pending(), '{"error":"request header block too large"}');
    c.close();
  });

  await t.step("a client cannot send the guard's connection header", async () => {
    const c = await RawHttp.open(port);
    await c.send(
      "GET /api/health HTTP/1.1\r\nHost: test\r\nX-Signet-Guard-Connection: 1\r\n\r\n",
    );
    const res = await c.response();
    assertEquals(res.status, 400);
    assertEquals(await c.closedWithin(LATE_MS) !== null, true);
    c.close();
  });

  await t.step("a slow but steady body is not cut off", async () => {
    const body = JSON.stringify({ username: "nobody-in-particular" });
    const c = await RawHttp.open(port);
    await c.send(
      "POST /api/login/challenge HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    // ~40 bytes over ~6 s: longer than both timeouts, never a gap as long as either.
    assert(await c.drip(body, 150), "the connection was closed while the body was arriving");
    const res = await c.response();
    assertEquals(res.status, 200, res.body);
    assert(typeof JSON.parse(res.body).nonce === "string");
    c.close();
  });

  const home = await Deno.makeTempDir({ prefix: "signet-home-" });
  const env = gitEnv(home);
  const { token } = await userWithRepo(server, "alice", "slow");

  await t.step("git push and clone over HTTP work behind the guard", async () => {
    const url = `http://alice:${token}@127.0.0.1:${port}/alice/slow.git`;
    const work = `${home}/work`;
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    await commitFile(work, env, "a.txt", "a\n".repeat(100_000), "one");
    await runOk("git", ["push", "-q", url, "main"], { cwd: work, env });
    await runOk("git", ["clone", "-q", url, `${home}/clone`], { env });
    assertEquals(
      (await Deno.readTextFile(`${home}/clone/a.txt`)).length,
      "a\n".length * 100_000,
    );
  });

  await t.step(
    "a request waiting on the server longer than the idle timeout is served",
    async () => {
      // The only git slot is held by a push whose last 4 bytes trickle in for ~8 s, a byte every
      // 2 s, well inside the idle timeout (a push takes a slot once its first megabyte arrived);
      // an advertisement request meanwhile waits for the slot with no byte moving on its
      // connection, longer than the idle timeout.
      const work = `${home}/work`;
      const head = await commitRandomFile(work, env, "held.bin", 1536 * 1024, "held");
      const packBytes = await packObjects(work, env, [head, `^${head}~1`]);
      const commands = receivePackCommands("0".repeat(40), head, "refs/heads/held");
      const body = new Uint8Array(commands.length + packBytes.length);
      body.set(commands);
      body.set(packBytes, commands.length);
      const holder = await RawHttp.open(port);
      await holder.send(
        "POST /alice/slow.git/git-receive-pack HTTP/1.1\r\nHost: test\r\n" +
          `Authorization: Bearer ${token}\r\n` +
          "Content-Type: application/x-git-receive-pack-request\r\n" +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      await holder.send(body.subarray(0, body.length - 4));
      const dripping = (async () => {
        for (const byte of body.subarray(body.length - 4)) {
          await new Promise((r) => setTimeout(r, 2000));
          await holder.send(new Uint8Array([byte]));
        }
        return true;
      })().catch(() => false);
      // Its git is running (it holds the slot), however long a busy machine took to get there.
      await gitRunning("receive-pack", [basename(server.dataDir), "/alice/slow.git"]);
      // A raw client: fetch would quietly retry on a new connection if this one were closed.
      const waiter = await RawHttp.open(port);
      const started = performance.now();
      await waiter.send(
        "GET /alice/slow.git/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: test\r\n\r\n",
      );
      const res = await waiter.response();
      const waited = performance.now() - started;
      assertEquals(res.status, 200, res.body);
      assertStringIncludes(res.body, "# service=git-upload-pack");
      assert(waited > IDLE_S * 1000, `waited only ${waited} ms: the slot was not held`);
      waiter.close();
      assert(await dripping, "the trickling push was cut off");
      assertEquals((await holder.response()).status, 200);
      holder.close();
    },
  );

  await t.step("a client that stops reading a large response is cut off", async () => {
    const MB = 1024 * 1024;
    await createRepo(server, token, "big");
    const work = `${home}/big`;
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    const file = await Deno.open(`${work}/blob`, { write: true, create: true });
    for (let i = 0; i < 12 * 16; i++) {
      await file.write(crypto.getRandomValues(new Uint8Array(MB / 16)));
    }
    file.close();
    await runOk("git", ["add", "-A"], { cwd: work, env });
    await runOk("git", ["commit", "-q", "-m", "big"], { cwd: work, env });
    const url = `http://alice:${token}@127.0.0.1:${port}/alice/big.git`;
    await runOk("git", ["push", "-q", url, "main"], { cwd: work, env });
    const head = (await runOk("git", ["rev-parse", "HEAD"], { cwd: work, env })).trim();
    const body = uploadPackWant(head);
    const c = await RawHttp.open(port);
    await c.send(
      "POST /alice/big.git/git-upload-pack HTTP/1.1\r\nHost: test\r\n" +
        "Content-Type: application/x-git-upload-pack-request\r\n" +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    // Read nothing for longer than the idle timeout, then take what is there.
    await new Promise((r) => setTimeout(r, IDLE_S * 1000 + 3000));
    const ms = await c.closedWithin(LATE_MS);
    assert(ms !== null, "the connection is still open");
    assert(c.pendingBytes() < 12 * MB, `got ${c.pendingBytes()} bytes: the whole pack`);
    c.close();
  });

  await t.step("rate limits key on the real client address", async () => {
    const R = new URL(server.registryUrl).port;
    const first = [];
    for (let i = 0; i < 4; i++) first.push(await statusFrom("127.0.0.1", Number(R), "/v1/nonce"));
    assertEquals(first, [200, 200, 200, 429]);
    // Another address has its own bucket (behind one shared guard address it would not).
    assertEquals(await statusFrom("127.0.0.2", Number(R), "/v1/nonce"), 200);
  });
});

serverTest("HTTP timeouts 0/0: served directly by Deno.serve, without the guard", {
  env: { SERVICE_HTTP_HEADER_TIMEOUT: "0", SERVICE_HTTP_IDLE_TIMEOUT: "0" },
}, async (server) => {
  // The guard would refuse its own connection header from a client with 400.
  const c = await RawHttp.open(server.httpPort);
  await c.send("GET /api/health HTTP/1.1\r\nHost: test\r\nX-Signet-Guard-Connection: 1\r\n\r\n");
  assertEquals((await c.response()).status, 200);
  // Partial headers are not cut off.
  await c.send("GET /api/health HTTP/1.1\r\n");
  assertEquals(await c.closedWithin(1500), null);
  c.close();
});
