/** End-to-end tests of git over SSH with the real OpenSSH client and real git. */
import { pollUntil } from "../../helpers/wait.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, createUser, login, makeKey } from "../../../testing/accounts.ts";
import { run, runOk } from "../../../testing/run.ts";
import { serverTest, tempHome } from "../../helpers/server.ts";
import { gitSshEnv, ssh, sshOptions } from "../../helpers/ssh.ts";
import { commitFile } from "../../helpers/git.ts";

serverTest("git over SSH", {}, async (server, t) => {
  const home = await tempHome("signet-ssh-git-");
  const alice = await createUser(server, "alice");
  const bob = await createUser(server, "bob");
  const stranger = await makeKey("stranger");
  await createRepo(server, await login(server, alice), "hello");
  const aliceEnv = gitSshEnv(server.sshPort, alice.key, home);
  const bobEnv = gitSshEnv(server.sshPort, bob.key, home);
  const base = `ssh://git@127.0.0.1:${server.sshPort}`;
  const url = `${base}/alice/hello.git`;
  const bareDir = `${server.dataDir}/repos/alice/hello.git`;
  const work = `${home}/work`;
  await runOk("git", ["init", "-q", "-b", "main", work], { env: aliceEnv });
  const commit = async (msg: string) => {
    return await commitFile(work, aliceEnv, "file.txt", msg, msg);
  };
  const serverHead = async () =>
    (await run("git", ["--git-dir", bareDir, "rev-parse", "main"])).stdout.trim();

  await t.step("the owner pushes over SSH", async () => {
    const head = await commit("one");
    const r = await run("git", ["push", url, "main"], { cwd: work, env: aliceEnv });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(await serverHead(), head);
    // The push is recorded once the client has its exit status: wait for it (bounded).
    const view = await pollUntil(
      async () => await (await fetch(`${server.httpUrl}/api/repos/alice/hello`)).json(),
      (v) => Boolean(v.repo.pushed_at),
    );
    assert(view.repo.pushed_at, "a successful push is recorded");
  });

  await t.step("another registered user clones, with protocol v2 and v0", async () => {
    const expected = await serverHead();
    for (const proto of ["2", "0"]) {
      const dir = `${home}/bob-clone-v${proto}`;
      const r = await run(
        "git",
        ["-c", `protocol.version=${proto}`, "clone", "-q", url, dir],
        { env: { ...bobEnv, GIT_TRACE_PACKET: "1" } },
      );
      assertEquals(r.code, 0, r.stderr);
      assertEquals(
        (await runOk("git", ["rev-parse", "HEAD"], { cwd: dir, env: bobEnv })).trim(),
        expected,
      );
      // GIT_PROTOCOL travels as an SSH env request; the server answers in the asked version.
      if (proto === "2") assertStringIncludes(r.stderr, "< version 2");
      else assert(!r.stderr.includes("< version 2"), "v0 stays v0");
    }
  });

  await t.step("every path form git or a person may send is accepted", async () => {
    const expected = await serverHead();
    const scpLike = `git@127.0.0.1`; // the port comes from GIT_SSH_COMMAND's -p
    for (
      const remote of [
        `${scpLike}:alice/hello.git`, // git sends 'alice/hello.git'
        `${scpLike}:alice/hello`, // 'alice/hello'
        `${base}/alice/hello`, // '/alice/hello'
        url, // '/alice/hello.git'
      ]
    ) {
      const r = await run("git", ["ls-remote", remote, "main"], { env: bobEnv });
      assertEquals(r.code, 0, `${remote}: ${r.stderr}`);
      assertEquals(r.stdout.split(/\s/)[0], expected, remote);
    }
  });

  await t.step("git upload-archive works (git archive --remote)", async () => {
    const out = `${home}/archive.tar`;
    const r = await run(
      "git",
      ["archive", `--remote=${url}`, "--format=tar", "-o", out, "main"],
      { env: bobEnv },
    );
    assertEquals(r.code, 0, r.stderr);
    const list = await runOk("tar", ["-tf", out]);
    assertEquals(list.trim(), "file.txt");
  });

  await t.step("a non-owner's push is refused and the repository is unchanged", async () => {
    const before = await serverHead();
    const dir = `${home}/bob-clone-v2`;
    await Deno.writeTextFile(`${dir}/file.txt`, "bob was here");
    await runOk("git", ["commit", "-q", "-am", "bob"], { cwd: dir, env: bobEnv });
    const r = await run("git", ["push", url, "main"], { cwd: dir, env: bobEnv });
    assert(r.code !== 0, "push must fail");
    assertStringIncludes(r.stderr, "bob may not push to alice/hello: only its owner may");
    assertEquals(await serverHead(), before);
    const refs = await runOk("git", ["--git-dir", bareDir, "for-each-ref"]);
    assertEquals(refs.trim().split("\n").length, 1, refs);
  });

  await t.step("an unregistered key is refused with the exact signup command", async () => {
    const env = gitSshEnv(server.sshPort, stranger, home);
    const r = await run("git", ["clone", "-q", url, `${home}/stranger`], { env });
    assert(r.code !== 0);
    assertStringIncludes(r.stderr, "is not registered with any account");
    assertStringIncludes(r.stderr, `    ssh -p ${server.sshPort} git@127.0.0.1\n`);
    assertStringIncludes(r.stderr, "connect without a command");
    const push = await run("git", ["push", url, "main"], { cwd: work, env });
    assert(push.code !== 0);
    assertStringIncludes(push.stderr, "is not registered with any account");
    assertEquals(await Deno.stat(`${home}/stranger`).catch(() => null), null);
  });

  await t.step(
    "an unregistered key learns nothing of the repository and holds nothing of it",
    async () => {
      // The session finds and holds the named repository while it looks up the key's user.
      await createRepo(server, await login(server, alice), "held-ahead");
      for (const target of ["alice/held-ahead.git", "alice/never-made.git"]) {
        const r = await ssh(server.sshPort, stranger, `git-upload-pack '${target}'`);
        assertEquals(r.code, 1, r.stderr);
        assertStringIncludes(r.stderr, "is not registered with any account");
        assert(!r.stderr.includes("not found"), r.stderr);
      }
      // Held ahead and never let go, the repository could not be deleted: the delete would wait.
      const del = await run("timeout", [
        "20",
        "ssh",
        ...sshOptions(server.sshPort, alice.key),
        "-T",
        "git@127.0.0.1",
        "repo delete held-ahead",
      ]);
      assertEquals(del.code, 0, `the delete waited or failed: ${del.stderr}`);
      assertEquals(del.stdout, "Deleted alice/held-ahead\n");
    },
  );

  await t.step("errors before git runs: one line on stderr, nonzero exit", async () => {
    const cases: [string, number, string][] = [
      ["git-upload-pack 'alice/nope.git'", 1, "error: repository alice/nope not found\n"],
      [
        "git-upload-pack '../etc/passwd'",
        1,
        'error: repository path must be <owner>/<name>, got "../etc/passwd"\n',
      ],
      ["git-upload-pack 'alice/..'", 1, "error: repository name must be"],
      ["git-upload-pack", 2, "error: usage: git-upload-pack '<owner>/<repo>.git'\n"],
      ["git-receive-pack 'alice/hello.git'", 1, "error: bob may not push to alice/hello"],
    ];
    for (const [command, code, expected] of cases) {
      const r = await ssh(server.sshPort, bob.key, command);
      assertEquals(r.code, code, command);
      assert(r.stderr.startsWith(expected), `${command}: ${JSON.stringify(r.stderr)}`);
      assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
      assertEquals(r.stdout, "");
    }
  });

  await t.step("git's own exit status travels back", async () => {
    // upload-pack dies with status 128 on a malformed request.
    const r = await ssh(server.sshPort, bob.key, "git-upload-pack 'alice/hello.git'", {
      stdin: "this is not pkt-line\n",
    });
    assertEquals(r.code, 128, r.stderr);
    assertStringIncludes(r.stderr, "fatal:");
  });

  await t.step("`git upload-pack` (two words) is understood too", async () => {
    const r = await ssh(server.sshPort, bob.key, "git upload-pack 'alice/hello.git'", {
      stdin: "0000",
    });
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stdout, "refs/heads/main");
  });

  await t.step("a large push streams through and arrives intact", async () => {
    const big = new Uint8Array(8 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 65536) {
      crypto.getRandomValues(big.subarray(i, i + 65536));
    }
    await Deno.writeFile(`${work}/big.bin`, big);
    await runOk("git", ["add", "."], { cwd: work, env: aliceEnv });
    await runOk("git", ["commit", "-q", "-m", "big"], { cwd: work, env: aliceEnv });
    const head = (await runOk("git", ["rev-parse", "HEAD"], { cwd: work, env: aliceEnv }))
      .trim();
    const r = await run("git", ["push", url, "main"], { cwd: work, env: aliceEnv });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(await serverHead(), head);
    await runOk("git", ["--git-dir", bareDir, "fsck", "--no-progress"]);
    const dir = `${home}/big-clone`;
    const c = await run("git", ["clone", "-q", url, dir], { env: bobEnv });
    assertEquals(c.code, 0, c.stderr);
    assertEquals(await Deno.readFile(`${dir}/big.bin`), big);
  });
});
