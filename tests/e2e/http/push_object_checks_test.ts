/**
 * Pushed objects are checked (issue 22): a `.gitmodules` naming a submodule `../../hooks` (the
 * vector of CVE-2018-11235) and a tree with a `.git` entry are refused over smart HTTP and SSH,
 * leave the repository unchanged, and a client that checks what it fetches
 * (`transfer.fsckObjects`) still clones it. An ordinary submodule is accepted.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";

serverTest("pushed objects are checked on both transports", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-fsck-" });
  const { user: alice, token } = await userWithRepo(server, "alice", "repo");
  const env = gitEnv(home);
  const bare = `${server.dataDir}/repos/alice/repo.git`;
  const remotes = {
    http: {
      url: `${server.httpUrl.replace("http://", `http://alice:${token}@`)}/alice/repo.git`,
      env,
    },
    ssh: {
      url: `ssh://git@127.0.0.1:${server.sshPort}/alice/repo.git`,
      env: gitSshEnv(server.sshPort, alice.key, home),
    },
  };
  const work = `${home}/work`;
  const git = (args: string[]) => runOk("git", args, { cwd: work, env });
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  await Deno.writeTextFile(`${work}/README`, "hello\n");
  await git(["add", "."]);
  await git(["commit", "-q", "-m", "base"]);
  const base = (await git(["rev-parse", "HEAD"])).trim();
  await runOk("git", ["push", "-q", remotes.http.url, "main"], { cwd: work, env });

  /** A commit on `base` whose tree is `base`'s plus `entries` (mktree lines). */
  const commitWith = async (message: string, entries: string[]) => {
    const listing = (await git(["ls-tree", base])).trimEnd();
    const tree = (await runOk("git", ["mktree"], {
      cwd: work,
      env,
      stdin: `${listing}\n${entries.join("\n")}\n`,
    })).trim();
    return (await git(["commit-tree", tree, "-p", base, "-m", message])).trim();
  };
  const blob = async (text: string) =>
    (await runOk("git", ["hash-object", "-w", "--stdin"], { cwd: work, env, stdin: text }))
      .trim();

  const gitmodules = await blob(
    '[submodule "../../hooks"]\n\tpath = ../../hooks\n\turl = https://example.invalid/x.git\n',
  );
  const hook = await blob("#!/bin/sh\necho pwned\n");
  const hooksTree = (await runOk("git", ["mktree"], {
    cwd: work,
    env,
    stdin: `100755 blob ${hook}\tpost-checkout\n`,
  })).trim();
  const dotGitTree = (await runOk("git", ["mktree"], {
    cwd: work,
    env,
    stdin: `040000 tree ${hooksTree}\thooks\n`,
  })).trim();
  const hostile = {
    gitmodulesName: await commitWith("submodule ../../hooks", [
      `100644 blob ${gitmodules}\t.gitmodules`,
      `160000 commit ${base}\thooks`,
    ]),
    hasDotgit: await commitWith("a .git directory", [`040000 tree ${dotGitTree}\t.git`]),
  };

  for (const [transport, remote] of Object.entries(remotes)) {
    for (const [check, commit] of Object.entries(hostile)) {
      await t.step(`${transport}: a push with ${check} is refused`, async () => {
        const branch = `${transport}-${check}`;
        const r = await run("git", ["push", remote.url, `${commit}:refs/heads/${branch}`], {
          cwd: work,
          env: remote.env,
        });
        assert(r.code !== 0, `the push was accepted: ${r.stderr}`);
        assertStringIncludes(r.stderr, check);
        const refs = await runOk("git", [
          "--git-dir",
          bare,
          "for-each-ref",
          "--format=%(refname)",
        ]);
        assertEquals(refs.trim(), "refs/heads/main");
        const present = await run("git", ["--git-dir", bare, "cat-file", "-e", commit]);
        assert(present.code !== 0, "the refused commit was kept");
      });
    }
  }

  await t.step("a client checking what it fetches clones the repository", async () => {
    const r = await run("git", [
      "-c",
      "transfer.fsckObjects=true",
      "clone",
      "-q",
      `${server.httpUrl}/alice/repo.git`,
      `${home}/clone`,
    ], { env });
    assertEquals(r.code, 0, r.stderr);
  });

  await t.step("an ordinary submodule is accepted over both transports", async () => {
    const modules = await blob(
      '[submodule "lib"]\n\tpath = lib\n\turl = https://example.invalid/lib.git\n',
    );
    const commit = await commitWith("submodule lib", [
      `100644 blob ${modules}\t.gitmodules`,
      `160000 commit ${base}\tlib`,
    ]);
    for (const [transport, remote] of Object.entries(remotes)) {
      const r = await run("git", ["push", remote.url, `${commit}:refs/heads/ok-${transport}`], {
        cwd: work,
        env: remote.env,
      });
      assertEquals(r.code, 0, r.stderr);
    }
    await runOk("git", ["--git-dir", bare, "fsck", "--strict", "--no-progress"]);
  });
});
