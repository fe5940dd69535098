/**
 * Git on two instances sharing one repository store, with real git over smart HTTP and OpenSSH:
 * one host key whichever instance answers, a push through one instance seen at once by a clone
 * through the other (clone caches included), concurrent pushes to one branch through both
 * serialized as one server would, and a repository deleted through one instance while the other
 * serves a clone of it.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import {
  balancedTest,
  balancer,
  cloneMain,
  direct,
  fsck,
  git,
  historyOf,
  LOST_RACE,
  remote,
  serverErrors,
  via,
} from "../../helpers/cluster.ts";
import { createRepo, userWithRepo } from "../../../testing/accounts.ts";
import { runOk } from "../../../testing/run.ts";
import { tempHome } from "../../helpers/server.ts";
import { commitFile, commitRandomFile } from "../../helpers/git.ts";
import { scanHostKeyFingerprint } from "../../helpers/ssh.ts";

balancedTest("git: pushes and clones through either instance see one repository", {}, async (
  cluster,
  t,
) => {
  const [a, b] = cluster.instances;
  const home = await tempHome("signet-cluster-git-");
  const { user, token } = await userWithRepo(via(cluster, a), "alice", "shared");
  const auth = { token, key: user.key };
  let n = 0;
  const scratch = () => `${home}/c${n++}`;

  await t.step("one SSH host key on A, on B and through the balancer", async () => {
    const fingerprints = [
      await scanHostKeyFingerprint(a.ports.ssh),
      await scanHostKeyFingerprint(b.ports.ssh),
      await scanHostKeyFingerprint(cluster.sshPort),
      await scanHostKeyFingerprint(cluster.sshPort),
    ];
    assertEquals(new Set(fingerprints).size, 1, fingerprints.join(" "));
  });

  await t.step("a push through A is in a clone through B at once, on both transports", async () => {
    const work = `${home}/work`;
    const viaA = remote(direct(a), "http", "alice/shared", auth, home);
    await runOk("git", ["init", "-q", "-b", "main", work], { env: viaA.env });
    for (const transport of ["http", "ssh", "http", "ssh"] as const) {
      const pushA = remote(direct(a), transport, "alice/shared", auth, home);
      const cloneB = remote(direct(b), transport, "alice/shared", auth, home);
      const head = await commitFile(work, viaA.env, "file.txt", `${n}`, `round ${n}`);
      const pushed = await git(pushA, ["push", "-q", pushA.url, "main"], work);
      assertEquals(pushed.code, 0, pushed.stderr);
      // Twice: the second clone may come from B's clone cache, which must know of the push too.
      for (let i = 0; i < 2; i++) {
        const cloned = await cloneMain(cloneB, scratch());
        assertEquals(cloned.code, 0, cloned.stderr);
        assertEquals(cloned.head, head, `${transport} clone through B`);
      }
    }
  });

  await t.step(
    "10 concurrent pushes to main through both: acknowledged ones all kept",
    async () => {
      // Ten writers, each with its own commit on the same main, pushing at once (alternately through
      // A and B, over HTTP and SSH); a writer that loses a race fetches, rebases and tries again.
      const base = (await historyOf(cluster, "alice/shared")).size;
      const writers = Array.from({ length: 10 }, (_, i) => i);
      const entries = [direct(a), direct(b)];
      const prepared = await Promise.all(writers.map(async (i) => {
        const r = remote(entries[i % 2], i % 4 < 2 ? "http" : "ssh", "alice/shared", auth, home);
        const dir = scratch();
        await runOk("git", [...r.args, "clone", "-q", r.url, dir], { env: r.env });
        await commitFile(dir, r.env, `writer-${i}.txt`, `${i}`, `writer ${i}`);
        return { r, dir };
      }));
      const acknowledged: string[] = [];
      const refusals: string[] = [];
      await Promise.all(prepared.map(async ({ r, dir }) => {
        for (let attempt = 0; attempt < 15; attempt++) {
          const head = (await runOk("git", ["rev-parse", "HEAD"], { cwd: dir, env: r.env })).trim();
          const pushed = await git(r, ["push", r.url, "main"], dir);
          if (pushed.code === 0) {
            acknowledged.push(head);
            return;
          }
          assert(
            LOST_RACE.test(pushed.stderr),
            `a refusal other than a lost race:\n${pushed.stderr}`,
          );
          refusals.push(pushed.stderr);
          const pulled = await git(r, ["pull", "-q", "--rebase", r.url, "main"], dir);
          assertEquals(pulled.code, 0, pulled.stderr);
        }
      }));
      assertEquals(acknowledged.length, 10, `acknowledged ${acknowledged.length} of 10`);
      assert(refusals.length >= 1, "pushes from one base raced: some lost");
      const history = await historyOf(cluster, "alice/shared");
      for (const head of acknowledged) assert(history.has(head), `acknowledged ${head} is lost`);
      assertEquals(history.size, base + 10);
      const checked = await fsck(cluster, "alice/shared");
      assertEquals(checked.code, 0, checked.stderr + checked.stdout);
      // Through the balancer, both transports see the same main.
      const main = (await runOk("git", [
        "--git-dir",
        `${cluster.dataDir}/repos/alice/shared.git`,
        "rev-parse",
        "main",
      ])).trim();
      for (const transport of ["http", "ssh"] as const) {
        const cloned = await cloneMain(
          remote(balancer(cluster), transport, "alice/shared", auth, home),
          scratch(),
        );
        assertEquals(cloned.head, main, cloned.stderr);
      }
    },
  );

  await t.step(
    "deleted through A while B serves clones: clean errors, no 500, no leftovers",
    async () => {
      await createRepo(via(cluster, a), token, "doomed");
      const work = `${home}/doomed`;
      const viaB = remote(direct(b), "http", "alice/doomed", auth, home);
      await runOk("git", ["init", "-q", "-b", "main", work], { env: viaB.env });
      const head = await commitRandomFile(work, viaB.env, "blob.bin", 4 * 1024 * 1024, "big");
      const pushed = await git(viaB, ["push", "-q", viaB.url, "main"], work);
      assertEquals(pushed.code, 0, pushed.stderr);
      const errorsBefore = serverErrors(cluster).length;

      // Four clients clone through B over and over; once one clone has come through whole, A deletes
      // the repository under the others; they stop when the delete has been answered.
      let deleting = false;
      let firstClone: () => void;
      const cloned = new Promise<void>((resolve) => (firstClone = resolve));
      const outcomes: Awaited<ReturnType<typeof cloneMain>>[] = [];
      const clients = Array.from({ length: 4 }, async (_, i) => {
        const r = remote(direct(b), i % 2 ? "ssh" : "http", "alice/doomed", auth, home);
        // Bounded, so clones that never succeed end the test rather than hang it.
        for (let done = false, k = 0; !done && k < 50; k++) {
          done = deleting;
          const outcome = await cloneMain(r, scratch());
          outcomes.push(outcome);
          if (outcome.code === 0) firstClone();
        }
      });
      await Promise.race([cloned, Promise.all(clients)]);
      const deleted = await fetch(`${a.httpUrl}/api/repos/alice/doomed`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${token}` },
      });
      deleting = true;
      await deleted.body?.cancel();
      assertEquals(deleted.status, 200);
      await Promise.all(clients);
      for (const outcome of outcomes) {
        // Either a whole clone of the pushed commit, or a refusal that is not a server error.
        if (outcome.code === 0) assertEquals(outcome.head, head);
        else assert(!/HTTP 5\d\d|internal/i.test(outcome.stderr), outcome.stderr);
      }
      assertEquals(serverErrors(cluster).slice(errorsBefore), []);
      // Gone everywhere, and nothing half-deleted left in the shared store.
      for (const entry of [direct(a), direct(b), balancer(cluster)]) {
        const res = await fetch(`${entry.httpUrl}/api/repos/alice/doomed`);
        assertEquals(res.status, 404);
        assertEquals(typeof (await res.json()).error, "string");
        for (const transport of ["http", "ssh"] as const) {
          const after = await cloneMain(
            remote(entry, transport, "alice/doomed", auth, home),
            scratch(),
          );
          assert(after.code !== 0, "a clone of a deleted repository");
          assert(!/HTTP 5\d\d/.test(after.stderr), after.stderr);
        }
      }
      // The deleted directory went to the trash in one rename and was removed from there (the
      // name locks beside the repositories are files, and stay).
      const dirs = (dir: string) =>
        [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name).sort();
      assertEquals(dirs(`${cluster.dataDir}/repos`).filter((e) => e !== ".trash"), ["alice"]);
      assertEquals(dirs(`${cluster.dataDir}/repos/alice`), ["shared.git"]);
      const trash = `${cluster.dataDir}/repos/.trash`;
      assertEquals(dirs(`${cluster.dataDir}/repos`).includes(".trash") ? dirs(trash) : [], []);
      // The name is free again, through the other instance.
      await createRepo(via(cluster, b), token, "doomed");
      const fresh = await cloneMain(
        remote(direct(a), "http", "alice/doomed", auth, home),
        scratch(),
      );
      assertEquals(fresh.code, 0, fresh.stderr);
    },
  );
  await Deno.remove(home, { recursive: true });
});
