/**
 * Creating and deleting a repository across two instances sharing the repositories: of creates of
 * one name at once exactly one wins; a delete through one instance waits for a transfer running on
 * the other, refuses new ones cleanly (never a 500), and leaves no half-deleted directory.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { clusterTest } from "../../helpers/cluster.ts";
import { createRepo, postJson, signedIn } from "../../../testing/accounts.ts";
import type { LaunchedServer } from "../../../testing/launch.ts";
import { run, runOk } from "../../../testing/run.ts";
import { tempHome } from "../../helpers/server.ts";
import { gitSshEnv, sshOptions } from "../../helpers/ssh.ts";
import { commitFile } from "../../helpers/git.ts";

function deleteRepo(server: LaunchedServer, token: string, name: string): Promise<Response> {
  return fetch(`${server.httpUrl}/api/repos/alice/${name}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Log lines at error level, or of a 500, on any instance. */
function serverErrors(servers: LaunchedServer[]): string[] {
  return servers.flatMap((s) =>
    s.logs().split("\n").filter((l) => l.includes('"level":"error"') || l.includes('"status":500'))
  );
}

/** Whether `p` has settled by now (after the microtasks already queued). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  const marker = Symbol();
  return await Promise.race([p.then(() => true, () => true), Promise.resolve(marker)]) !== marker;
}

clusterTest(
  "repository create and delete across two instances",
  { names: ["a", "b"] },
  async (cluster, t) => {
    const [a, b] = cluster.instances;
    const { user, token } = await signedIn(a, "alice");
    const home = await tempHome("signet-cluster-repos-");

    await t.step("ten creates of one name at once, split over both: one wins", async () => {
      const results = await Promise.all(
        Array.from(
          { length: 10 },
          (_, i) =>
            postJson(`${(i % 2 ? a : b).httpUrl}/api/repos`, { name: "race" }, {
              Authorization: `Bearer ${token}`,
            }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      assertEquals(statuses, [201, ...Array(9).fill(409)]);
      await runOk("git", ["--git-dir", `${cluster.dataDir}/repos/alice/race.git`, "fsck"]);
      const left = [...Deno.readDirSync(`${cluster.dataDir}/repos/alice`)].map((e) => e.name);
      assertEquals(left.sort(), ["race.git", "race.git.lock"]);
    });

    await createRepo(a, token, "doomed");
    const dir = `${cluster.dataDir}/repos/alice/doomed.git`;
    const work = `${home}/work`;
    const pushEnv = gitSshEnv(a.sshPort, user.key, home);
    await runOk("git", ["init", "-q", "-b", "main", work], { env: pushEnv });
    const head = await commitFile(
      work,
      pushEnv,
      "f",
      "x",
      "one",
      `ssh://git@127.0.0.1:${a.sshPort}/alice/doomed.git`,
    );

    await t.step(
      "a delete through a waits for a clone session on b, refusing new ones",
      async () => {
        // A clone through b that has its advertisement and has not finished: its git runs.
        const session = new Deno.Command("ssh", {
          args: [
            ...sshOptions(b.sshPort, user.key),
            "-T",
            "git@127.0.0.1",
            "git-upload-pack 'alice/doomed.git'",
          ],
          stdin: "piped",
          stdout: "piped",
          stderr: "null",
        }).spawn();
        const reader = session.stdout.getReader();
        let advert = "";
        while (!advert.endsWith("0000")) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the session ended early: ${advert}`);
          advert += new TextDecoder().decode(value);
        }
        assert(advert.includes(head), advert);

        const deleting = deleteRepo(a, token, "doomed");
        // The row goes first: the repository is gone for everyone else at once.
        for (let i = 0; i < 400; i++) {
          const r = await fetch(`${b.httpUrl}/api/repos/alice/doomed`);
          await r.body?.cancel();
          if (r.status === 404) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const refused = await run("git", [
          "clone",
          "-q",
          `${b.httpUrl}/alice/doomed.git`,
          `${home}/late`,
        ], { env: pushEnv });
        assertEquals(refused.code !== 0, true);
        assert(refused.stderr.includes("not found"), refused.stderr);
        // The delete cannot end while the session's git runs on b: the directory is whole.
        assertEquals(await settled(deleting), false);
        await runOk("git", ["--git-dir", dir, "fsck"]);

        await session.stdin.close();
        await reader.cancel().catch(() => {});
        await session.status;
        const res = await deleting;
        assertEquals(res.status, 200, await res.clone().text());
        assertEquals(await res.json(), { deleted: "alice/doomed" });
        assertEquals(Deno.statSync(`${cluster.dataDir}/repos/alice`).isDirectory, true);
        assertEquals(
          [...Deno.readDirSync(`${cluster.dataDir}/repos/alice`)].map((e) => e.name).sort(),
          ["doomed.git.lock", "race.git", "race.git.lock"],
        );
        assertEquals([...Deno.readDirSync(`${cluster.dataDir}/repos/.trash`)], []);
      },
    );

    await t.step("clones through b while a deletes: each is whole or cleanly refused", async () => {
      await createRepo(b, token, "doomed");
      await runOk("git", [
        "push",
        "-q",
        `ssh://git@127.0.0.1:${a.sshPort}/alice/doomed.git`,
        "main",
      ], {
        cwd: work,
        env: pushEnv,
      });
      const cloneEnv = gitSshEnv(b.sshPort, user.key, home);
      const clones = Array.from({ length: 6 }, (_, i) =>
        run("git", [
          "clone",
          "-q",
          "--bare",
          i % 2
            ? `${b.httpUrl}/alice/doomed.git`
            : `ssh://git@127.0.0.1:${b.sshPort}/alice/doomed.git`,
          `${home}/c${i}`,
        ], { env: cloneEnv }));
      const res = await deleteRepo(a, token, "doomed");
      assertEquals(res.status, 200);
      await res.body?.cancel();
      for (const [i, r] of (await Promise.all(clones)).entries()) {
        if (r.code === 0) await runOk("git", ["--git-dir", `${home}/c${i}`, "fsck"]);
        else assert(/not found|does not exist/.test(r.stderr), r.stderr);
      }
      assertEquals(
        [...Deno.readDirSync(`${cluster.dataDir}/repos/alice`)].map((e) => e.name).includes(
          "doomed.git",
        ),
        false,
      );
      assertEquals(serverErrors([a, b]), []);
    });
  },
);
