/**
 * Lock files a killed git left behind: removed when old (at start-up and before each push, on both
 * transports), never when a live git could hold them.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";
import { serverTest, startTestServer } from "../../helpers/server.ts";
import {
  recoverAtStart,
  removeStaleGitFiles,
  staleCutoff,
} from "../../../server/domain/stale_locks.ts";

const HOUR_AGO = () => new Date(Date.now() - 3_600_000);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Writes `path` (and its directory) and sets its modification time to `mtime`. */
async function plant(path: string, mtime: Date): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, "0000000000000000000000000000000000000000\n");
  await Deno.utime(path, mtime, mtime);
}

Deno.test("removeStaleGitFiles removes only old lock and temporary files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-locks-" });
  try {
    const repo = `${dir}/r.git`;
    await runOk("git", ["init", "-q", "--bare", repo]);
    const old = HOUR_AGO();
    const stale = [
      `${repo}/HEAD.lock`,
      `${repo}/packed-refs.lock`,
      `${repo}/refs/heads/main.lock`,
      `${repo}/refs/heads/feature/x.lock`,
      `${repo}/objects/pack/tmp_pack_abc`,
    ];
    for (const path of stale) await plant(path, old);
    await Deno.mkdir(`${repo}/objects/tmp_objdir-incoming-abc/aa`, { recursive: true });
    await plant(`${repo}/objects/tmp_objdir-incoming-abc/aa/bb`, old);
    await Deno.utime(`${repo}/objects/tmp_objdir-incoming-abc`, old, old);
    const fresh = `${repo}/refs/heads/live.lock`;
    await plant(fresh, new Date());
    // A lock that is a symbolic link is never followed or removed.
    const outside = `${dir}/outside`;
    await Deno.writeTextFile(outside, "keep");
    await Deno.symlink(outside, `${repo}/config.lock`);

    const locksOnly = await removeStaleGitFiles(repo, Date.now() - 30_000, { locksOnly: true });
    assertEquals(locksOnly.map((f) => f.path.slice(repo.length)).sort(), [
      "/HEAD.lock",
      "/packed-refs.lock",
      "/refs/heads/feature/x.lock",
      "/refs/heads/main.lock",
    ]);
    assert(await exists(`${repo}/objects/pack/tmp_pack_abc`), "locksOnly removed a pack file");

    const rest = await removeStaleGitFiles(repo, Date.now() - 30_000);
    assertEquals(rest.map((f) => f.path.slice(repo.length)).sort(), [
      "/objects/pack/tmp_pack_abc",
      "/objects/tmp_objdir-incoming-abc",
    ]);
    assert(await exists(fresh), "a fresh lock was removed");
    assert(await exists(`${repo}/config.lock`), "a symlinked lock was removed");
    assertEquals(await Deno.readTextFile(outside), "keep");
    for (const path of stale) assert(!(await exists(path)), `${path} is still there`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

serverTest(
  "a push succeeds over a stale ref lock and waits out a live one, on both transports",
  {},
  async (server) => {
    const home = await Deno.makeTempDir({ prefix: "signet-home-" });
    try {
      const { user: alice, token } = await userWithRepo(server, "alice", "locked");
      const gitDir = `${server.dataDir}/repos/alice/locked.git`;
      const work = `${home}/work`;
      const env = gitEnv(home);
      await runOk("git", ["init", "-q", "-b", "main", work], { env });
      const commit = async (msg: string) =>
        await runOk("git", ["commit", "-q", "--allow-empty", "-m", msg], { cwd: work, env });
      const http = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/locked.git`;
      const ssh = `ssh://git@127.0.0.1:${server.sshPort}/alice/locked.git`;
      const sshEnv = gitSshEnv(server.sshPort, alice.key, home);
      await commit("first");
      await runOk("git", ["push", "-q", http, "main"], { cwd: work, env });

      for (
        const [transport, url, pushEnv] of [["http", http, env], ["ssh", ssh, sshEnv]] as const
      ) {
        // A lock as a git killed during its ref update leaves it: an hour old.
        await plant(`${gitDir}/refs/heads/main.lock`, HOUR_AGO());
        await commit(`over a stale lock (${transport})`);
        const pushed = await run("git", ["push", "-q", url, "main"], { cwd: work, env: pushEnv });
        assertEquals(pushed.code, 0, `${transport}: ${pushed.stderr}`);
        assert(!(await exists(`${gitDir}/refs/heads/main.lock`)), "the stale lock is still there");

        // A lock made just now could belong to a live git: the push is refused, the lock kept.
        await plant(`${gitDir}/refs/heads/main.lock`, new Date());
        await commit(`over a live lock (${transport})`);
        const refused = await run("git", ["push", "-q", url, "main"], {
          cwd: work,
          env: pushEnv,
        });
        assert(refused.code !== 0, `${transport}: a push went through a live lock`);
        assert(await exists(`${gitDir}/refs/heads/main.lock`), "a live lock was removed");
        await Deno.remove(`${gitDir}/refs/heads/main.lock`);
        await runOk("git", ["push", "-q", url, "main"], { cwd: work, env: pushEnv });
      }
      const fsck = await run("git", ["--git-dir", gitDir, "fsck", "--no-dangling"], { env });
      assertEquals(fsck.code, 0, fsck.stderr);
      assertStringLogged(server.logs(), "removed stale git file");
    } finally {
      await server.stop();
      await Deno.remove(home, { recursive: true });
    }
  },
);

serverTest("start-up removes lock files left from before the start", {}, async (server) => {
  await userWithRepo(server, "alice", "crashed");
  await server.kill();
  const gitDir = `${server.dataDir}/repos/alice/crashed.git`;
  // Seconds old, as after a crash and a quick restart.
  await plant(`${gitDir}/refs/heads/main.lock`, new Date(Date.now() - 10_000));
  await plant(`${gitDir}/packed-refs.lock`, new Date(Date.now() - 10_000));
  const again = await startTestServer({ dataDir: server.dataDir });
  try {
    // The sweep runs in the background after the start.
    const deadline = Date.now() + 20_000;
    while (await exists(`${gitDir}/packed-refs.lock`) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert(!(await exists(`${gitDir}/refs/heads/main.lock`)), "ref lock kept over a restart");
    assert(!(await exists(`${gitDir}/packed-refs.lock`)), "packed-refs.lock kept");
  } finally {
    await again.stop();
  }
});

Deno.test("a start beside other instances keeps their pushes' quarantines", async () => {
  const repos = await Deno.makeTempDir({ prefix: "signet-shared-locks-" });
  try {
    const gitDir = `${repos}/alice/busy.git`;
    const minuteAgo = new Date(Date.now() - 60_000);
    const quarantine = `${gitDir}/objects/tmp_objdir-incoming-abc/pack/tmp_pack_1`;
    await plant(quarantine, minuteAgo);
    await Deno.utime(`${gitDir}/objects/tmp_objdir-incoming-abc`, minuteAgo, minuteAgo);
    await plant(`${gitDir}/refs/heads/main.lock`, minuteAgo);
    // Another instance may still be receiving that push: only its lock is stale.
    assertEquals(await recoverAtStart(repos, Date.now(), { shared: true }), 1);
    assert(await exists(quarantine), "a live push's quarantine was removed");
    assert(!(await exists(`${gitDir}/refs/heads/main.lock`)));
    // Alone on the repositories (SQLite), the same quarantine is a crash's leftover.
    assertEquals(await recoverAtStart(repos, Date.now()), 1);
    assert(!(await exists(quarantine)));
  } finally {
    await Deno.remove(repos, { recursive: true });
  }
});

Deno.test("the stale cutoff is the start right after it, then 30 s before now", () => {
  const started = 1_000_000;
  assertEquals(staleCutoff(started + 1_000, started), started - 2_000);
  assertEquals(staleCutoff(started + 60_000, started), started + 30_000);
});

function assertStringLogged(logs: string, text: string): void {
  assert(logs.includes(text), `the log does not say "${text}"`);
}
