/**
 * SSH robustness with short limits: handshake deadline, connection caps, idle timeout that
 * spares running transfers. The SSH server runs in-process so the limits can be short; they are
 * still seconds, and every "not yet" is checked seconds before the limit, so that a busy machine
 * (a timer late by a second) fails nothing.
 */
import { createRepo, repoDir } from "../../../server/domain/repos.ts";
import { assert, assertEquals } from "../../helpers/assert.ts";
import { inProcessSsh } from "../../helpers/in_process.ts";
import { makeKey, type TestKey } from "../../../testing/accounts.ts";
import { run, runOk } from "../../../testing/run.ts";
import { gitSshEnv, spawnSsh, ssh } from "../../helpers/ssh.ts";
import { SERVER_TEST } from "../../helpers/server.ts";
import { commitFile } from "../../helpers/git.ts";

const { ctx, aliceKey, alice, withServer } = await inProcessSsh("signet-ssh-limits-");

/** Runs `ssh repo list` until it succeeds (a closed connection is noticed asynchronously). */
async function admittedWithin(port: number, key: TestKey, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const r = await ssh(port, key, "repo list");
    if (r.code === 0 || Date.now() > deadline) return r.code;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A raw TCP connection; `identified` is true when the server sent its SSH banner. */
async function rawConnect(port: number): Promise<{ conn: Deno.TcpConn; identified: boolean }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const buf = new Uint8Array(256);
  const n = await conn.read(buf).catch(() => null);
  const identified = n !== null &&
    new TextDecoder().decode(buf.subarray(0, n)).startsWith("SSH-2.0-");
  return { conn, identified };
}

/** Resolves with the milliseconds until the server closes `conn`. */
async function closedAfter(conn: Deno.TcpConn): Promise<number> {
  const start = Date.now();
  const buf = new Uint8Array(1024);
  while (await conn.read(buf).catch(() => null) !== null) { /* discard */ }
  conn.close();
  return Date.now() - start;
}

/** Spawns `ssh -T` into the signup prompt with stdin held open; it sits idle there. */
function idleSignup(port: number, key: TestKey) {
  const child = spawnSsh(port, key, ["-T"], { stdin: "piped", stdout: "piped", stderr: "null" });
  const writer = child.stdin.getWriter();
  let output = "";
  const reading = (async () => {
    for await (const chunk of child.stdout) output += new TextDecoder().decode(chunk);
  })();
  return {
    output: () => output,
    type: (text: string) => writer.write(new TextEncoder().encode(text)),
    async waitFor(text: string, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no ${text} in ${output}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async exited(): Promise<number> {
      const status = await child.status;
      await reading;
      await writer.close().catch(() => {});
      return status.code;
    },
    kill() {
      try {
        child.kill();
      } catch { /* gone */ }
    },
  };
}

Deno.test({
  name: "SSH limits",
  ...SERVER_TEST,
  async fn(t) {
    await t.step("a connection that never authenticates is dropped at the deadline", async () => {
      await withServer({ handshakeTimeoutMs: 3000 }, async (port) => {
        const { conn, identified } = await rawConnect(port);
        assert(identified, "the server speaks first");
        const ms = await closedAfter(conn);
        // From the banner's arrival, which may itself come late: the deadline counts from accept.
        assert(ms >= 1000 && ms < 3000 + 10_000, `closed after ${ms} ms`);
      });
    });

    await t.step("the cap on unauthenticated connections", async () => {
      await withServer({ maxStartups: { start: 2, rate: 30, full: 2 } }, async (port) => {
        const held = [await rawConnect(port), await rawConnect(port)];
        assert(held.every((h) => h.identified));
        const third = await rawConnect(port);
        assert(!third.identified, "over the cap: closed without a banner");
        third.conn.close();
        const refused = await ssh(port, aliceKey, "repo list");
        assertEquals(refused.code, 255);
        for (const h of held) h.conn.close();
        assertEquals(await admittedWithin(port, aliceKey), 0, "admitted once the two closed");
      });
    });

    await t.step("the cap on all connections counts authenticated ones", async () => {
      await withServer({ maxConnections: 2 }, async (port) => {
        const waiting = idleSignup(port, await makeKey("waiting"));
        await waiting.waitFor("Username: ");
        const raw = await rawConnect(port);
        assert(raw.identified);
        const refused = await ssh(port, aliceKey, "repo list");
        assertEquals(refused.code, 255, "third connection refused");
        raw.conn.close();
        assertEquals(await admittedWithin(port, aliceKey), 0, "admitted once the raw one closed");
        waiting.kill();
        await waiting.exited();
      });
    });

    await t.step("an idle connection is closed; typing keeps it open", async () => {
      await withServer({ idleTimeoutMs: 4000 }, async (port) => {
        const session = idleSignup(port, await makeKey("idler"));
        await session.waitFor("Username: ");
        // Answer every second for ~6 s, longer than the 4 s countdown each answer resets.
        let lastTyped = 0;
        for (let i = 0; i < 6; i++) {
          await new Promise((r) => setTimeout(r, 1000));
          lastTyped = Date.now();
          await session.type("Bad!\n");
        }
        const asked = () => session.output().split("Username: ").length - 1;
        const deadline = Date.now() + 10_000;
        while (asked() < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assertEquals(asked(), 7, "still answering after 6 s of activity");
        const code = await session.exited();
        // Counted from just before the last input was sent: the server's 4 s countdown restarts
        // when it arrives, after that, so the close cannot come sooner however busy the machine.
        const ms = Date.now() - lastTyped;
        assert(code !== 0, "the session ends without an exit status");
        // A timer may fire a millisecond before its time.
        assert(ms >= 3990 && ms < 4000 + 10_000, `closed ${ms} ms after the last input`);
      });
    });

    await t.step("a silent transfer outlives the idle timeout", async () => {
      const repo = await createRepo(ctx, alice, "slow");
      const hook = `${repoDir(ctx, repo.owner, repo.name)}/hooks/pre-receive`;
      // git keeps the connection silent while the hook runs (receive.keepAlive is 5 s).
      await Deno.writeTextFile(hook, "#!/bin/sh\nsleep 2\n");
      await Deno.chmod(hook, 0o755);
      await withServer({ idleTimeoutMs: 500 }, async (port) => {
        const home = await Deno.makeTempDir();
        const env = gitSshEnv(port, aliceKey, home);
        const work = `${home}/w`;
        await runOk("git", ["init", "-q", "-b", "main", work], { env });
        await commitFile(work, env, "f", "x", "x");
        const start = Date.now();
        const push = await run(
          "git",
          ["push", `ssh://git@127.0.0.1:${port}/alice/slow.git`, "main"],
          { cwd: work, env },
        );
        assertEquals(push.code, 0, push.stderr);
        assert(Date.now() - start >= 2000, "the hook really ran");
      });
    });

    await ctx.store.close();
  },
});
