/**
 * Two instances sharing the repositories: both name the balancer's addresses in clone URLs, and a
 * push through one is in the next clone through the other at once, over smart HTTP and SSH, with
 * each instance's clone cache on.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { clusterTest } from "../../helpers/cluster.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import type { LaunchedServer } from "../../../testing/launch.ts";
import { runOk } from "../../../testing/run.ts";
import { tempHome } from "../../helpers/server.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";
import { cloneBareHead, commitFile } from "../../helpers/git.ts";

/** How `server` answered its clones so far, as its log lines say ("made" or "cache"). */
function cloneSources(server: LaunchedServer): string[] {
  return server.logs().split("\n").filter((l) => l.includes('"clone":'))
    .map((l) => JSON.parse(l).clone);
}

clusterTest(
  "a push through one instance is in the next clone through the other",
  {
    names: ["a", "b"],
    // What the balancer in front of them is reached at.
    env: { SERVICE_BASE_URL: "http://git.example.test:8080", SERVICE_SSH_PUBLIC_PORT: "2222" },
  },
  async (cluster) => {
    const [a, b] = cluster.instances;
    const home = await tempHome("signet-cluster-clone-");
    const { user } = await userWithRepo(a, "alice", "shared");
    // Either instance names the balancer's addresses, never its own.
    for (const s of [a, b]) {
      const view = await (await fetch(`${s.httpUrl}/api/repos/alice/shared`)).json();
      assertEquals(view.repo.clone_urls, {
        http: "http://git.example.test:8080/alice/shared.git",
        ssh: "ssh://git@git.example.test:2222/alice/shared.git",
      });
    }
    const env = gitSshEnv(b.sshPort, user.key, home);
    const pushUrl = `ssh://git@127.0.0.1:${a.sshPort}/alice/shared.git`;
    const pushEnv = gitSshEnv(a.sshPort, user.key, home);
    const urls = [
      `${b.httpUrl}/alice/shared.git`,
      `ssh://git@127.0.0.1:${b.sshPort}/alice/shared.git`,
    ];
    const work = `${home}/work`;
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    let n = 0;
    const cloneHead = (url: string) => cloneBareHead(url, `${home}/clone-${n++}`, env);
    for (const round of ["one", "two", "three"]) {
      const head = await commitFile(work, pushEnv, "file.txt", round, round, pushUrl);
      // Twice on each transport: the second clone of a state may come from b's cache.
      for (const url of [...urls, ...urls]) assertEquals(await cloneHead(url), head, round);
    }
    // b's cache was on and used between the pushes it never saw (log lines come as transfers
    // end: a busy machine may take seconds).
    const deadline = Date.now() + 20_000;
    while (cloneSources(b).length < 12 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const sources = cloneSources(b);
    assertEquals(sources.includes("cache"), true, sources.join(" "));
    assertEquals(sources.filter((s) => s === "made").length >= 3, true, sources.join(" "));
  },
);
