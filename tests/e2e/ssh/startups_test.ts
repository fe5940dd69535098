/**
 * SSH pre-authentication floods (issue 22): connections from several loopback networks that send
 * only an identification line, or nothing, must not lock out a real `git clone` from elsewhere.
 * Linux routes all of 127.0.0.0/8 to loopback, so 127.0.N.2 is a client in network 127.0.N.0/24.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { type TestUser, userWithRepo } from "../../../testing/accounts.ts";
import { run, runOk } from "../../../testing/run.ts";
import { serverTest, type TestServer } from "../../helpers/server.ts";
import { gitSshEnv, spawnSsh } from "../../helpers/ssh.ts";
import { PreAuthFlood, rawSshFrom } from "../../helpers/ssh_raw.ts";
import { commitFile } from "../../helpers/git.ts";

const IDENT = "SSH-2.0-OpenSSH_9.6\r\n";

/** A user with a repository holding one commit, pushed over SSH before any flood. */
async function seed(server: TestServer, home: string): Promise<{ user: TestUser; head: string }> {
  const { user: user } = await userWithRepo(server, "alice", "hello");
  const env = gitSshEnv(server.sshPort, user.key, home);
  const work = `${home}/work`;
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  await commitFile(work, env, "f.txt", "hello\n", "one");
  const url = `ssh://git@127.0.0.1:${server.sshPort}/alice/hello.git`;
  await runOk("git", ["push", "-q", url, "main"], { cwd: work, env });
  const head = (await runOk("git", ["rev-parse", "HEAD"], { cwd: work, env })).trim();
  return { user, head };
}

/** Clones alice/hello over SSH with OpenSSH from 127.0.0.1; asserts it got `head`. */
async function cloneFromLoopback(server: TestServer, user: TestUser, home: string, head: string) {
  const env = gitSshEnv(server.sshPort, user.key, home);
  const dir = `${home}/clone-${crypto.randomUUID()}`;
  const url = `ssh://git@127.0.0.1:${server.sshPort}/alice/hello.git`;
  const r = await run("git", ["clone", "-q", url, dir], { env });
  assertEquals(r.code, 0, `clone refused during the flood: ${r.stderr}`);
  assertEquals((await runOk("git", ["rev-parse", "HEAD"], { cwd: dir, env })).trim(), head);
}

/** Asserts that the server logs `text` within 5 s (its stderr is read asynchronously). */
async function logged(server: TestServer, text: string): Promise<void> {
  for (let i = 0; i < 50 && !server.logs().includes(text); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assertStringIncludes(server.logs(), text);
}

serverTest(
  "ssh flood: five networks × 16 silent connections, default limits; a clone gets through",
  {},
  async (server) => {
    const home = await Deno.makeTempDir({ prefix: "signet-ssh-flood-" });
    const { user, head } = await seed(server, home);
    // The attack: 5 addresses × 16 (the per-address cap) = 80 connections, more than
    // the old global cap of 64. Three send an identification line, two send nothing.
    const talkers = new PreAuthFlood(
      server.sshPort,
      ["127.0.1.2", "127.0.2.2", "127.0.3.2"],
      16,
      IDENT,
    );
    const silent = new PreAuthFlood(server.sshPort, ["127.0.4.2", "127.0.5.2"], 16, undefined);
    try {
      const deadline = Date.now() + 20_000;
      while (talkers.held() + silent.held() < 80) {
        assert(Date.now() < deadline, `flood holds ${talkers.held() + silent.held()} of 80`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Another address in an attacking /24 is refused: that network holds its 16.
      const neighbour = await rawSshFrom("127.0.1.9", server.sshPort, IDENT);
      assert(!neighbour.served, "a 17th unauthenticated connection from one /24 was served");
      neighbour.close();
      await cloneFromLoopback(server, user, home, head);
      assert(talkers.held("127.0.1.2") <= 16, "per-address cap");
    } finally {
      await talkers.stop();
      await silent.stop();
      await server.stop();
    }
    assertStringIncludes(server.logs(), "ssh connection refused:");
  },
);

serverTest("ssh flood: at full, a newcomer network takes a flooder's slot; idle timeout from env", {
  env: {
    SERVICE_SSH_MAX_STARTUPS: "2:30:8",
    SERVICE_SSH_MAX_STARTUPS_PER_PREFIX: "4",
    SERVICE_SSH_IDLE_TIMEOUT: "1",
  },
}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-ssh-flood-" });
  const { user, head } = await seed(server, home);

  await t.step("three networks want 12 slots of 8; a clone from a fourth gets one", async () => {
    const flood = new PreAuthFlood(
      server.sshPort,
      ["127.0.1.2", "127.0.2.2", "127.0.3.2"],
      4,
      IDENT,
    );
    try {
      await flood.holding(8);
      await new Promise((r) => setTimeout(r, 500));
      assertEquals(flood.held(), 8, "more unauthenticated connections than full");
      for (const from of ["127.0.1.2", "127.0.2.2", "127.0.3.2"]) {
        assert(flood.held(from) <= 4, `${from} holds ${flood.held(from)}`);
      }
      await cloneFromLoopback(server, user, home, head);
    } finally {
      await flood.stop();
    }
    await logged(server, "dropped: a new network needed its slot");
  });

  await t.step("an idle authenticated connection is closed after 1 s", async () => {
    const start = Date.now();
    const child = spawnSsh(server.sshPort, user.key, ["-N"], {
      stdin: "null",
      stdout: "null",
      stderr: "null",
    });
    const timer = setTimeout(() => child.kill(), 30_000);
    const status = await child.status;
    clearTimeout(timer);
    const ms = Date.now() - start;
    assert(ms >= 900 && ms < 30_000, `ssh -N ended after ${ms} ms`);
    assert(status.signal === null, "killed by the test: the server never closed it");
    await logged(server, "ssh idle timeout");
  });
});
