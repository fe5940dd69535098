/**
 * Slow clients cannot hold the git slots (issue 22): while an anonymous client drips upload-pack
 * requests over HTTP and a registered user keeps SSH git sessions open without sending, another
 * user's clone and push over both transports finish in normal time. The slow-loris requests are
 * cut off by the minimum body rate, and the silent SSH sessions by the SSH git idle timeout.
 */
import net from "node:net";
import ssh2 from "ssh2";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  createRepo,
  createUser,
  login,
  type TestUser,
  userWithRepo,
} from "../../../testing/accounts.ts";
import { gitEnv, runOk, spawnWithStderr } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";
import { resolvesWithin } from "../../helpers/wait.ts";
import { commitFile, commitRandomFile, uploadPackWant } from "../../helpers/git.ts";

/** How long a victim's git command may take (the attacks would hold it for 60 s and more). */
const VICTIM_LIMIT_MS = 20_000;
/** Gap between the slow-loris bytes: a want line's 50 bytes would take 100 s. */
const DRIP_GAP_MS = 2_000;

/** A chunked upload-pack POST from `from` that sends the start of a want line, then drips. */
class SlowLoris {
  #socket: net.Socket;
  #answered: Promise<void>;
  #timer: ReturnType<typeof setInterval> | undefined;
  received = "";
  /** When the server's answer began (ms after the request did), or null. */
  answeredAfterMs: number | null = null;

  constructor(port: number, from: string, path: string) {
    const started = performance.now();
    this.#socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    this.#socket.on("error", () => {});
    this.#answered = new Promise((resolve) => {
      this.#socket.on("data", (d) => {
        this.received += d.toString("latin1");
        this.answeredAfterMs ??= performance.now() - started;
        clearInterval(this.#timer);
        resolve();
      });
      this.#socket.on("close", () => resolve());
    });
    this.#socket.on("connect", () => {
      this.#socket.write(
        `POST ${path} HTTP/1.1\r\nHost: test\r\n` +
          "Content-Type: application/x-git-upload-pack-request\r\n" +
          "Transfer-Encoding: chunked\r\n\r\n5\r\n0032w\r\n",
      );
      const rest = "ant " + "0".repeat(40) + "\n";
      let i = 0;
      this.#timer = setInterval(() => {
        if (i < rest.length) this.#socket.write(`1\r\n${rest[i++]}\r\n`);
      }, DRIP_GAP_MS);
    });
  }

  /** Waits up to `ms` for the server's answer (or a close); true when one came. */
  async answeredWithin(ms: number): Promise<boolean> {
    return await resolvesWithin(this.#answered, ms);
  }

  close(): void {
    clearInterval(this.#timer);
    this.#socket.destroy();
  }
}

/**
 * One SSH connection of `user` running `count` git commands that send nothing (or only `first`,
 * the start of a request) and then stay silent.
 */
function silentSshSessions(
  port: number,
  user: TestUser,
  command: string,
  count: number,
  first?: string,
): Promise<{ ended: Promise<string[]>; close: () => void }> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    client.on("error", reject);
    client.on("ready", () => {
      const ends: Promise<string>[] = [];
      let opened = 0;
      for (let i = 0; i < count; i++) {
        client.exec(command, (err: Error | undefined, stream: ssh2.ClientChannel) => {
          if (err) return reject(err);
          let stderr = "";
          if (first) stream.write(first);
          stream.on("data", () => {});
          stream.stderr.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
          ends.push(new Promise((r) => stream.on("close", () => r(stderr))));
          if (++opened === count) {
            resolve({ ended: Promise.all(ends), close: () => client.end() });
          }
        });
      }
    });
    client.connect({
      host: "127.0.0.1",
      port,
      username: "git",
      privateKey: Deno.readTextFileSync(user.key.privatePath),
      readyTimeout: 15_000,
    });
  });
}

/** The process `pid` and all its descendants (from /proc), deepest first. */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/)
      .filter(Boolean).map(Number);
  } catch { /* gone */ }
  return [...children.flatMap(processTree), pid];
}

/** Runs git with `env` in `cwd`, killing it (and its helpers) after VICTIM_LIMIT_MS. */
async function victim(args: string[], env: Record<string, string>, cwd?: string) {
  const started = performance.now();
  const { child, stderr, drained } = spawnWithStderr("git", args, {
    cwd,
    env: { GIT_TERMINAL_PROMPT: "0", ...env },
  });
  const timer = setTimeout(() => {
    for (const pid of processTree(child.pid)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
  }, VICTIM_LIMIT_MS);
  const status = await child.status;
  clearTimeout(timer);
  await drained;
  const ms = performance.now() - started;
  assert(
    ms < VICTIM_LIMIT_MS,
    `git ${args.join(" ")} was still running after ${Math.round(ms)} ms`,
  );
  assertEquals(status.code, 0, stderr());
  return ms;
}

/**
 * Two git slots: two slow requests blocked every transfer before. Either client may take both, so
 * that what is tested is that slow clients hold none, not the cap per client.
 */
const TWO_SLOTS = { SERVICE_GIT_CONCURRENCY: "2", SERVICE_GIT_CONCURRENCY_PER_CLIENT: "2" };

serverTest("slow clients cannot hold the git slots", {
  env: { ...TWO_SLOTS, SERVICE_SSH_GIT_IDLE_TIMEOUT: "25" },
}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-slots-" });
  const alice = await createUser(server, "alice");
  const mallory = await createUser(server, "mallory");
  const token = await login(server, alice);
  await createRepo(server, token, "target");
  await createRepo(server, await login(server, mallory), "own");
  const work = `${home}/work`;
  const env = gitEnv(home);
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  let n = 0;
  const commit = async () => {
    await commitFile(work, env, "file.txt", `change ${++n}\n`, `change ${n}`);
  };
  const httpUrl = `${server.httpUrl}/alice/target.git`;
  const pushUrl = httpUrl.replace("http://", `http://alice:${token}@`);
  const sshUrl = `ssh://git@127.0.0.1:${server.sshPort}/alice/target.git`;
  const sshEnv = gitSshEnv(server.sshPort, alice.key, home);
  await commit();
  await runOk("git", ["push", "-q", pushUrl, "main"], { cwd: work, env });

  const lorises: SlowLoris[] = [];
  let sessions: { ended: Promise<string[]>; close: () => void }[] = [];
  try {
    await t.step(
      "the attack starts: 6 dripping HTTP requests, 10 silent SSH sessions",
      async () => {
        for (let i = 0; i < 6; i++) {
          lorises.push(
            new SlowLoris(server.httpPort, "127.0.0.2", "/alice/target.git/git-upload-pack"),
          );
        }
        sessions = await Promise.all([
          silentSshSessions(server.sshPort, mallory, "git-upload-pack 'alice/target.git'", 4),
          silentSshSessions(server.sshPort, mallory, "git-receive-pack 'mallory/own.git'", 2),
          silentSshSessions(
            server.sshPort,
            mallory,
            "git-upload-archive 'alice/target.git'",
            2,
          ),
          // These hold a slot (git has their first bytes) until they fall silent for 10 s.
          silentSshSessions(
            server.sshPort,
            mallory,
            "git-upload-pack 'alice/target.git'",
            2,
            "0032want",
          ),
        ]);
        // Let every request and session reach the server and its git slot queue.
        await new Promise((r) => setTimeout(r, 3_000));
        assert(
          lorises.every((l) => l.answeredAfterMs === null),
          "a slow request already ended",
        );
      },
    );

    await t.step(
      "another user clones and pushes over HTTP and SSH in normal time",
      async () => {
        const times: Record<string, number> = {};
        times.httpClone = await victim(["clone", "-q", httpUrl, `${home}/c1`], env);
        await commit();
        times.httpPush = await victim(["push", "-q", pushUrl, "main"], env, work);
        times.sshClone = await victim(["clone", "-q", sshUrl, `${home}/c2`], sshEnv);
        await commit();
        times.sshPush = await victim(["push", "-q", sshUrl, "main"], sshEnv, work);
        times.httpCloneV0 = await victim(
          ["-c", "protocol.version=0", "clone", "-q", httpUrl, `${home}/c3`],
          env,
        );
        console.log(
          "victim ms:",
          JSON.stringify(times, (_, v) => typeof v === "number" ? Math.round(v) : v),
        );
      },
    );

    await t.step(
      "the dripping requests are cut off with 408 by the minimum body rate",
      async () => {
        for (const loris of lorises) {
          // One window (20 s) after its body began, plus slack for a busy machine.
          assert(await loris.answeredWithin(40_000), "a slow request is still unanswered");
          assertStringIncludes(loris.received, "HTTP/1.1 408 ");
          assertStringIncludes(loris.received, "request body too slow");
          assertStringIncludes(loris.received.toLowerCase(), "connection: close");
        }
      },
    );

    await t.step("the silent SSH sessions end at the SSH git idle timeout", async () => {
      for (const s of sessions) {
        const stderr = await Promise.race([
          s.ended,
          new Promise<null>((r) => setTimeout(() => r(null), 40_000)),
        ]);
        assert(stderr !== null, "a silent SSH session is still open");
        for (const text of stderr) assertStringIncludes(text, "git session was idle for 25 s");
      }
    });
  } finally {
    for (const loris of lorises) loris.close();
    for (const s of sessions) s.close();
  }
});

serverTest("a client reading a git response slowly, or not at all, is cut off and holds no slot", {
  env: { ...TWO_SLOTS, SERVICE_HTTP_BODY_TIMEOUT: "3", SERVICE_SSH_GIT_IDLE_TIMEOUT: "3" },
}, async (server) => {
  const home = await Deno.makeTempDir({ prefix: "signet-slots-" });
  const readers: Deno.TcpConn[] = [];
  try {
    const { token } = await userWithRepo(server, "alice", "big");
    const env = gitEnv(home);
    const work = `${home}/work`;
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    // 16 MB that does not compress: more than every buffer between git and the client holds.
    const head = await commitRandomFile(work, env, "big.bin", 16 * 1024 * 1024, "big");
    const url = `${server.httpUrl}/alice/big.git`;
    await runOk("git", ["push", "-q", url.replace("http://", `http://alice:${token}@`), "main"], {
      cwd: work,
      env,
    });

    // Two protocol v0 fetches of everything (no clone cache), read 1 KiB every 2 s.
    const body = uploadPackWant(head, "side-band-64k");
    for (let i = 0; i < 2; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.httpPort });
      readers.push(conn);
      await conn.write(new TextEncoder().encode(
        "POST /alice/big.git/git-upload-pack HTTP/1.1\r\nHost: test\r\n" +
          "Content-Type: application/x-git-upload-pack-request\r\n" +
          `Content-Length: ${body.length}\r\n\r\n${body}`,
      ));
      (async () => {
        const buf = new Uint8Array(1024);
        while (await conn.read(buf).catch(() => null) !== null) {
          await new Promise((r) => setTimeout(r, 2_000));
        }
      })();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const ms = await victim(["clone", "-q", url, `${home}/clone`], env);
    console.log(`clone beside two slow readers: ${Math.round(ms)} ms`);
    // git stopped for both slow readers (what the relay still holds drains to them slowly).
    const deadline = Date.now() + 30_000;
    const cutOff = () => server.logs().split("git response read too slowly").length - 1;
    while (cutOff() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assertEquals(cutOff(), 2);

    // Over SSH: a fetch of the pack that is never read ends at the SSH git idle timeout.
    const mallory = await createUser(server, "mallory");
    const client = new ssh2.Client();
    try {
      await new Promise<void>((resolve, reject) => {
        client.on("error", reject);
        client.on("ready", () => {
          client.exec(
            "git-upload-pack 'alice/big.git'",
            (err: Error | undefined, stream: ssh2.ClientChannel) => {
              if (err) return reject(err);
              stream.pause(); // never read: the advertisement and the pack stay unread
              stream.write(body);
              resolve();
            },
          );
        });
        client.connect({
          host: "127.0.0.1",
          port: server.sshPort,
          username: "git",
          privateKey: Deno.readTextFileSync(mallory.key.privatePath),
          readyTimeout: 15_000,
        });
      });
      // The session ends (its log line is written once the command returned).
      const ended = () => /ssh session[^\n]*mallory/.test(server.logs());
      const until = Date.now() + 30_000;
      while (!ended() && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      assert(ended(), "an SSH session that stopped reading is still running");
    } finally {
      client.end();
    }
    assertStringIncludes(server.logs(), "ssh git idle timeout");
  } finally {
    for (const conn of readers) {
      try {
        conn.close();
      } catch { /* closed */ }
    }
    await server.stop();
  }
});
