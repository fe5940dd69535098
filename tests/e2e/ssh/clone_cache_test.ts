/** The clone cache end to end: real git over smart HTTP and OpenSSH against the real server. */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { run, runOk } from "../../../testing/run.ts";
import { serverTest, tempHome, type TestServer } from "../../helpers/server.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";
import { cloneBareHead, commitFile } from "../../helpers/git.ts";

/** The log lines of answered clones, as [transport, source]. */
function cloneLog(server: TestServer): string[][] {
  return server.logs().split("\n").filter((l) => l.includes('"clone":'))
    .map((l) => JSON.parse(l)).map((e) => [e.transport, e.clone]);
}

async function waitForLogLines(server: TestServer, count: number): Promise<string[][]> {
  // Log lines are written as transfers finish; a busy machine may take seconds.
  const deadline = Date.now() + 20_000;
  while (cloneLog(server).length < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return cloneLog(server);
}

serverTest("clones are answered from the clone cache until a push", {}, async (server, t) => {
  const home = await tempHome("signet-clone-cache-");
  const { user: alice } = await userWithRepo(server, "alice", "cached");
  const env = gitSshEnv(server.sshPort, alice.key, home);
  const sshUrl = `ssh://git@127.0.0.1:${server.sshPort}/alice/cached.git`;
  const httpUrl = `${server.httpUrl}/alice/cached.git`;
  const work = `${home}/work`;
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  const commitPush = (msg: string) => commitFile(work, env, "file.txt", msg, msg, sshUrl);
  let n = 0;
  const cloneHead = (url: string) => cloneBareHead(url, `${home}/clone-${n++}`, env);

  const first = await commitPush("one");
  await t.step("the first clone makes the response, the next ones reuse it", async () => {
    assertEquals(await cloneHead(httpUrl), first);
    assertEquals(await cloneHead(httpUrl), first);
    assertEquals(await cloneHead(sshUrl), first);
    assertEquals(await waitForLogLines(server, 3), [["http", "made"], ["http", "cache"], [
      "ssh",
      "cache",
    ]]);
    const files = [...Deno.readDirSync(`${server.instanceDir}/clone-cache`)];
    assertEquals(files.length, 1, "one response on disk");
  });

  await t.step("a push retires it: the next clone sees the new commit", async () => {
    const second = await commitPush("two");
    assert(second !== first);
    assertEquals(await cloneHead(sshUrl), second);
    assertEquals(await cloneHead(httpUrl), second);
    assertEquals(cloneLog(server).slice(3), [["ssh", "made"], ["http", "cache"]]);
  });

  await t.step("identical clones at once all succeed and run git once", async () => {
    const third = await commitPush("three");
    const heads = await Promise.all(
      Array.from({ length: 6 }, (_, i) => cloneHead(i % 2 ? sshUrl : httpUrl)),
    );
    assertEquals(heads, Array(6).fill(third));
    const batch = (await waitForLogLines(server, 11)).slice(5);
    assertEquals(batch.length, 6);
    assertEquals(batch.filter(([, source]) => source === "made").length, 1);
  });

  await t.step("fetches with haves and protocol v0 clones still work, uncached", async () => {
    const head = await commitPush("four");
    const dir = `${home}/clone-0`;
    await runOk("git", ["--git-dir", dir, "fetch", "-q", httpUrl, "main:main"], { env });
    assertEquals(
      (await runOk("git", ["--git-dir", dir, "rev-parse", "main"], { env })).trim(),
      head,
    );
    const v0 = `${home}/clone-v0`;
    await runOk("git", ["-c", "protocol.version=0", "clone", "-q", sshUrl, v0], { env });
    assertEquals((await runOk("git", ["rev-parse", "HEAD"], { cwd: v0, env })).trim(), head);
    assertEquals(cloneLog(server).length, 11, "neither went through the clone cache");
  });
});

// One git slot: the session's upload-pack holds it while its clone request is answered.
serverTest(
  "SSH clones that make the response run git in their own session's slot (no deadlock)",
  { env: { SERVICE_GIT_CONCURRENCY: "1" } },
  async (single) => {
    const home = await tempHome("signet-clone-cache-");
    const { user: carol } = await userWithRepo(single, "carol", "solo");
    const env = gitSshEnv(single.sshPort, carol.key, home);
    const url = `ssh://git@127.0.0.1:${single.sshPort}/carol/solo.git`;
    const work = `${home}/solo`;
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    await runOk("git", ["commit", "-q", "--allow-empty", "-m", "solo"], { cwd: work, env });
    await runOk("git", ["push", "-q", url, "main"], { cwd: work, env });
    // Cold cache, three at once: each session holds or waits for the only slot.
    const results = await Promise.all([0, 1, 2].map((i) =>
      run("timeout", [
        "60",
        "git",
        "-c",
        "protocol.version=2",
        "clone",
        "-q",
        "--bare",
        url,
        `${home}/solo-${i}`,
      ], { env })
    ));
    for (const r of results) assertEquals(r.code, 0, `clone hung or failed: ${r.stderr}`);
  },
);
