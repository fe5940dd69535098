/**
 * Crash: pushes and registry writes in flight, `kill -9`, restart on the same data dir. The
 * server starts, git fsck is clean, every acknowledged push and write is present, every branch takes
 * a new push, and SQLite's integrity check passes.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { assertDatabaseIntact, serverTest, startTestServer } from "../../helpers/server.ts";

const PUSHES = 10;
/** Registry writes made ready; they are sent one by one until the kill. */
const WRITES = 40;
/** Writes sent before the next waits for one to be acknowledged (a slow machine's first commit). */
const WRITES_BEFORE_WAITING = 20;
/** Spacing of the registry writes, so they reach the server in different group commits. */
const WRITE_GAP_MS = 5;

serverTest(
  "kill -9 with pushes and registry writes in flight loses nothing acknowledged",
  {},
  async (server) => {
    const home = await Deno.makeTempDir({ prefix: "signet-home-" });
    const env = gitEnv(home);
    const { token } = await userWithRepo(server, "alice", "crash");
    const url = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/crash.git`;

    // Each pusher has its own commit (with some bulk so the push takes a moment) on its own branch.
    const commits: string[] = [];
    for (let i = 0; i < PUSHES; i++) {
      const work = `${home}/w${i}`;
      await runOk("git", ["init", "-q", "-b", `b${i}`, work], { env });
      const blob = new Uint8Array(256 * 1024);
      for (let o = 0; o < blob.length; o += 65536) {
        crypto.getRandomValues(blob.subarray(o, o + 65536));
      }
      await Deno.writeFile(`${work}/data.bin`, blob);
      await runOk("git", ["add", "."], { cwd: work, env });
      await runOk("git", ["commit", "-q", "-m", `c${i}`], { cwd: work, env });
      commits.push((await runOk("git", ["rev-parse", "HEAD"], { cwd: work, env })).trim());
    }
    const reg = client(server.registryUrl);
    const keys = await Promise.all(Array.from({ length: WRITES }, (_, i) => newKey(`k${i}`)));
    const bodies = await Promise.all(
      keys.map((k, i) =>
        reg.signed(
          "POST",
          "/v1/bots",
          { bot_id: `crash-${i}`, keys: [k.pub] },
          [k.signer],
          `crash-${i}`,
        )
      ),
    );

    const ackedPushes = new Set<number>();
    const ackedWrites = new Set<number>();
    const pushes = commits.map((_, i) =>
      run("git", ["push", "-q", url, `b${i}`], { cwd: `${home}/w${i}`, env }).then((r) => {
        if (r.code === 0) ackedPushes.add(i);
      })
    );
    const waitFor = async (done: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    };
    // Registry writes start once pushes are landing, so both are in flight at the kill. They are
    // sent a few ms apart: the server commits the writes of one event-loop turn together, so
    // writes sent at once would all be acknowledged in the same instant, leaving none in flight.
    await waitFor(() => ackedPushes.size >= 2);
    // The kill comes in the same turn as a write is sent, once one write has been acknowledged:
    // that write's answer cannot have come yet, so something is in flight however fast the server
    // (all ten pushes and every write sent so far may be done by then).
    const writes: Promise<void>[] = [];
    let inFlight = 0;
    for (let i = 0; i < WRITES && inFlight === 0; i++) {
      writes.push(
        reg.raw("POST", "/v1/bots", JSON.stringify(bodies[i])).then((r) => {
          if (r.status === 201) ackedWrites.add(i);
        }).catch(() => {}),
      );
      if (ackedWrites.size >= 1) inFlight = PUSHES - ackedPushes.size + (i + 1) - ackedWrites.size;
      else if (i + 1 < WRITES_BEFORE_WAITING) await new Promise((r) => setTimeout(r, WRITE_GAP_MS));
      else await waitFor(() => ackedWrites.size >= 1);
    }
    await server.kill();
    await Promise.all([...pushes, ...writes]);
    const acked = { pushes: [...ackedPushes], writes: [...ackedWrites] };
    console.log(
      `in flight at kill: ${inFlight}; acknowledged: ${acked.pushes.length} pushes, ${acked.writes.length} writes`,
    );
    assert(acked.pushes.length >= 2 && acked.writes.length >= 1, "too little was acknowledged");
    assert(inFlight > 0, "nothing was in flight at the kill");

    const again = await startTestServer({
      dataDir: server.dataDir,
      ports: {
        http: server.httpPort,
        ssh: server.sshPort,
        registry: Number(new URL(server.registryUrl).port),
      },
    });
    try {
      const gitDir = `${again.dataDir}/repos/alice/crash.git`;
      const fsck = await run("git", ["--git-dir", gitDir, "fsck", "--full", "--no-dangling"], {
        env,
      });
      assertEquals(fsck.code, 0, fsck.stderr);
      for (const i of acked.pushes) {
        const head =
          (await runOk("git", ["--git-dir", gitDir, "rev-parse", `refs/heads/b${i}`], { env }))
            .trim();
        assertEquals(head, commits[i], `push b${i} lost`);
      }
      for (const i of acked.writes) {
        const bot = await reg.raw("GET", `/v1/bots/crash-${i}`);
        assertEquals(bot.status, 200, `bot crash-${i} lost`);
      }
      // A fresh clone over HTTP sees every acknowledged branch.
      const ls = await runOk("git", ["ls-remote", url], { env });
      for (const i of acked.pushes) assert(ls.includes(`${commits[i]}\trefs/heads/b${i}`), ls);
      // Every branch takes a new push: no lock a killed git left behind refuses one.
      for (let i = 0; i < PUSHES; i++) {
        const work = `${home}/w${i}`;
        await runOk("git", ["commit", "-q", "--allow-empty", "-m", `after ${i}`], {
          cwd: work,
          env,
        });
        const after = await run("git", ["push", "-q", "-f", url, `b${i}`], { cwd: work, env });
        assertEquals(after.code, 0, `push to b${i} after the restart: ${after.stderr}`);
      }
      assertDatabaseIntact(again); // SQLite's own check (PostgreSQL keeps no file here)
    } finally {
      await again.stop();
    }
  },
);
