/**
 * `kill -9` of one instance while clients push and clone through the balancer: the other keeps
 * serving (nginx passes what the dead one refuses to it), every push a client saw succeed is in
 * the repository, `git fsck` is clean, and the instance started again takes requests again.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import {
  answeredBy,
  balancedTest,
  balancer,
  cloneMain,
  direct,
  fsck,
  git,
  remote,
  serverErrors,
  via,
} from "../../helpers/cluster.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { run, runOk } from "../../../testing/run.ts";
import { tempHome } from "../../helpers/server.ts";
import { commitFile, commitRandomFile } from "../../helpers/git.ts";

/** The phases of the test: the workers note in which one each operation started. */
type Phase = "both up" | "killing" | "a dead" | "restarting" | "a back";

/** One finished operation of a worker. */
interface Op {
  worker: string;
  started: Phase;
  ok: boolean;
  detail: string;
}

/**
 * Resolves once `done()` holds, checking every 50 ms; throws what `broken()` returns once it is
 * set (a worker that failed), or after `ms`, naming `what`.
 */
async function until(
  done: () => boolean,
  what: string,
  broken: () => unknown,
  ms = 120_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (broken()) throw broken();
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

balancedTest("failover: kill -9 of one instance mid-traffic loses no acknowledged push", {}, async (
  cluster,
  t,
) => {
  const [a, b] = cluster.instances;
  const home = await tempHome("signet-cluster-failover-");
  const { user, token } = await userWithRepo(via(cluster), "alice", "busy");
  const auth = { token, key: user.key };
  const seed = remote(balancer(cluster), "http", "alice/busy", auth, home);
  await runOk("git", ["init", "-q", "-b", "main", `${home}/seed`], { env: seed.env });
  await commitRandomFile(`${home}/seed`, seed.env, "blob.bin", 1024 * 1024, "seed");
  assertEquals((await git(seed, ["push", "-q", seed.url, "main"], `${home}/seed`)).code, 0);

  let phase: Phase = "both up";
  let stopping = false;
  const ops: Op[] = [];
  /** Acknowledged pushes: branch → the commits the client saw accepted. */
  const acked = new Map<string, string[]>();
  let n = 0;
  let broken: unknown;

  /** Two pushers (each on a branch of its own) and two cloners, HTTP and SSH, via the balancer. */
  const workers = (["http", "ssh"] as const).flatMap((transport) => {
    const r = remote(balancer(cluster), transport, "alice/busy", auth, home);
    const branch = `pusher-${transport}`;
    const pusher = async () => {
      const dir = `${home}/${branch}`;
      await runOk("git", [...r.args, "clone", "-q", r.url, dir], { env: r.env });
      await runOk("git", ["checkout", "-q", "-b", branch], { cwd: dir, env: r.env });
      acked.set(branch, []);
      while (!stopping) {
        const started = phase;
        const head = await commitFile(dir, r.env, "n.txt", `${n++}`, `push ${n}`);
        const pushed = await git(r, ["push", "-q", r.url, branch], dir);
        if (pushed.code === 0) acked.get(branch)!.push(head);
        ops.push({ worker: branch, started, ok: pushed.code === 0, detail: pushed.stderr });
      }
    };
    const cloner = async () => {
      while (!stopping) {
        const started = phase;
        const dir = `${home}/clone-${n++}`;
        const cloned = await cloneMain(r, dir);
        const ok = cloned.code === 0 && cloned.head !== undefined;
        ops.push({ worker: `cloner-${transport}`, started, ok, detail: cloned.stderr });
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    };
    // A worker that throws stops the test at the next check, never as an unhandled rejection
    // (which would end the test file before the cluster is stopped).
    return [pusher(), cloner()].map((p) => p.catch((err) => (broken ??= err)));
  });
  const names = ["pusher-http", "cloner-http", "pusher-ssh", "cloner-ssh"];
  /** Whether every worker has finished `count` operations that started in `p` and succeeded. */
  const each = (p: Phase, count: number) => () =>
    names.every((w) =>
      ops.filter((o) => o.worker === w && o.started === p && o.ok).length >= count
    );

  try {
    await t.step("both instances serve the traffic", async () => {
      await until(each("both up", 2), "two operations of each worker", () => broken);
      assertEquals(ops.filter((o) => !o.ok).map((o) => o.detail), []);
    });

    await t.step("A killed: B serves every client", async () => {
      phase = "killing";
      await a.kill();
      phase = "a dead";
      await until(
        each("a dead", 3),
        "three operations of each worker after the kill",
        () => broken,
      );
      // Requests nginx had already sent to A on a kept-alive connection when A died can fail
      // (a push is never sent twice); every later one goes to B.
      const failed = ops.filter((o) => o.started === "a dead" && !o.ok);
      assert(failed.length <= names.length, failed.map((o) => o.detail).join("\n"));
    });

    await t.step("A restarted: it rejoins, and the traffic goes on without a failure", async () => {
      phase = "restarting";
      await a.restart();
      phase = "a back";
      let byA = false;
      // nginx tries A again once its fail_timeout (1 s here) has passed.
      for (let i = 0; i < 300 && !byA; i++) {
        const res = await fetch(`${cluster.httpUrl}/api/health`);
        await res.body?.cancel();
        byA = res.status === 200 && answeredBy(cluster, res) === "a";
        if (!byA) await new Promise((r) => setTimeout(r, 100));
      }
      assert(byA, "A never answered through the balancer again");
      await until(
        each("a back", 2),
        "two operations of each worker after the restart",
        () => broken,
      );
      const failed = ops.filter((o) => o.started === "a back" && !o.ok);
      assertEquals(failed.map((o) => `${o.worker}: ${o.detail}`), []);
    });
  } finally {
    stopping = true;
    await Promise.all(workers);
  }
  if (broken) throw broken;

  await t.step("every acknowledged push is in the repository; fsck is clean", async () => {
    const gitDir = `${cluster.dataDir}/repos/alice/busy.git`;
    for (const [branch, heads] of acked) {
      assert(heads.length >= 7, `${branch}: ${heads.length} acknowledged pushes`);
      const history = new Set(
        (await runOk("git", ["--git-dir", gitDir, "rev-list", branch])).split("\n"),
      );
      for (const head of heads) assert(history.has(head), `${branch}: ${head} is lost`);
    }
    const checked = await fsck(cluster, "alice/busy");
    assertEquals(checked.code, 0, checked.stderr + checked.stdout);
    // A and B answer the same refs.
    const refs = async (url: string) =>
      (await run("git", ["ls-remote", url], { env: seed.env })).stdout;
    assertEquals(
      await refs(`${direct(a).httpUrl}/alice/busy.git`),
      await refs(`${direct(b).httpUrl}/alice/busy.git`),
    );
    // B, which never went down, answered nothing with a server error.
    assertEquals(serverErrors(cluster).filter((l) => l.startsWith("b:")), []);
  });
  await Deno.remove(home, { recursive: true });
});
