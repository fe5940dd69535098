/** End-to-end tests of git over smart HTTP with the real git client. */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { alteredToken, createRepo, createUser, login } from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { serverTest, tempHome } from "../../helpers/server.ts";
import { commitFile, packCount } from "../../helpers/git.ts";
import { pollUntil } from "../../helpers/wait.ts";

/** A protocol v2 `ls-refs` request POSTed to `repoUrl`'s upload-pack, with `headers`. */
function postLsRefs(
  repoUrl: string,
  headers: Record<string, string>,
  contentType = "application/x-git-upload-pack-request",
): Promise<Response> {
  return fetch(`${repoUrl}/git-upload-pack`, {
    method: "POST",
    headers: { ...headers, "Content-Type": contentType },
    body: new TextEncoder().encode("0014command=ls-refs\n00010000"),
  });
}

serverTest("smart HTTP", {}, async (server, t) => {
  const home = await tempHome();
  const env = gitEnv(home);
  const git = (args: string[], cwd?: string) => run("git", args, { cwd, env });
  const alice = await createUser(server, "alice");
  const bob = await createUser(server, "bob");
  const aliceToken = await login(server, alice);
  const bobToken = await login(server, bob);
  await createRepo(server, aliceToken, "hello");
  const url = `${server.httpUrl}/alice/hello.git`;
  const work = `${home}/work`;
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  /** Pushes main to the repository with `token` in an Authorization: Bearer header. */
  const pushWithBearer = (token: string) =>
    git(["-c", `http.extraHeader=Authorization: Bearer ${token}`, "push", url, "main"], work);
  const commit = async (msg: string) => {
    return await commitFile(work, env, "file.txt", msg, msg);
  };
  const remoteHead = async () =>
    (await runOk("git", [
      "--git-dir",
      `${server.dataDir}/repos/alice/hello.git`,
      "rev-parse",
      "main",
    ], { env })
      .catch(() => "")).trim();

  await t.step("push without credentials: 401 with Basic realm=service", async () => {
    await commit("one");
    const r = await git(["push", url, "main"], work);
    assert(r.code !== 0);
    const res = await fetch(`${url}/info/refs?service=git-receive-pack`);
    assertEquals(res.status, 401);
    assertEquals(res.headers.get("WWW-Authenticate"), 'Basic realm="service"');
    assertEquals(typeof (await res.json()).error, "string");
    // Whether a repository exists is not told before credentials: 401 all the same.
    for (
      const path of ["nope.git/info/refs?service=git-receive-pack", "nope.git/git-receive-pack"]
    ) {
      const post = !path.includes("?");
      const none = await fetch(`${server.httpUrl}/alice/${path}`, {
        method: post ? "POST" : "GET",
        headers: post ? { "Content-Type": "application/x-git-receive-pack-request" } : {},
        body: post ? "0000" : undefined,
      });
      assertEquals(none.status, 401, path);
      assertEquals(none.headers.get("WWW-Authenticate"), 'Basic realm="service"');
      assertEquals(await none.json(), { error: "pushing requires credentials" });
    }
  });

  await t.step("owner pushes with Basic user:token", async () => {
    const head = await commit("basic");
    const authed = url.replace("http://", `http://alice:${aliceToken}@`);
    const r = await git(["push", authed, "main"], work);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(await remoteHead(), head);
    // Pushed objects are kept as the pack the client sent (receive.unpackLimit=1), not
    // unpacked into loose objects that git would compress again.
    const objects = `${server.dataDir}/repos/alice/hello.git/objects`;
    const loose = (await runOk("git", ["count-objects", "-v"], {
      cwd: `${server.dataDir}/repos/alice/hello.git`,
      env,
    })).match(/^count: (\d+)$/m)?.[1];
    assertEquals(loose, "0");
    assert([...Deno.readDirSync(`${objects}/pack`)].some((e) => e.name.endsWith(".pack")));
  });

  await t.step("owner pushes with Bearer token", async () => {
    const head = await commit("bearer");
    const r = await pushWithBearer(aliceToken);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(await remoteHead(), head);
  });

  await t.step("git's gc --auto still merges the packs that pushes leave", async () => {
    // (server/domain/auto_gc_test.ts shows that receive-pack itself no longer runs it.)
    const bare = `${server.dataDir}/repos/alice/hello.git`;
    // Each push above left its own pack; with a limit of one, the next gc --auto merges them.
    const settings = [["gc.autoPackLimit", "1"], ["gc.autoDetach", "false"]];
    for (const [key, value] of settings) {
      await runOk("git", ["--git-dir", bare, "config", key, value], { env });
    }
    try {
      const head = await commit("gc");
      assertEquals((await pushWithBearer(aliceToken)).code, 0);
      assertEquals(
        await pollUntil(() => Promise.resolve(packCount(bare)), (n) => n === 1, 15_000),
        1,
      );
      assertEquals(await remoteHead(), head);
    } finally {
      for (const [key] of settings) {
        await runOk("git", ["--git-dir", bare, "config", "--unset", key], { env });
      }
    }
  });

  await t.step("anonymous clone has the commits (protocol v2 and v0)", async () => {
    const expected = await remoteHead();
    for (const proto of ["2", "0"]) {
      const dir = `${home}/clone-v${proto}`;
      const r = await git(["-c", `protocol.version=${proto}`, "clone", "-q", url, dir]);
      assertEquals(r.code, 0, r.stderr);
      assertEquals(
        (await runOk("git", ["rev-parse", "HEAD"], { cwd: dir, env })).trim(),
        expected,
      );
    }
    const fetched = await git(["fetch", "-q", url], `${home}/clone-v2`);
    assertEquals(fetched.code, 0);
  });

  await t.step(
    "a first push of only trunk makes trunk the default: clones check it out",
    async () => {
      await createRepo(server, aliceToken, "trunky");
      const trunkUrl = `${server.httpUrl}/alice/trunky.git`;
      const auth = `http.extraHeader=Authorization: Bearer ${aliceToken}`;
      const pushed = await git(["-c", auth, "push", trunkUrl, "main:trunk"], work);
      assertEquals(pushed.code, 0, pushed.stderr);
      const headFile = `${server.dataDir}/repos/alice/trunky.git/HEAD`;
      // Set once the push is recorded, which follows the client's answer by moments.
      await pollUntil(
        async () => (await Deno.readTextFile(headFile)).trim(),
        (head) => head === "ref: refs/heads/trunk",
      );
      const dir = `${home}/clone-trunky`;
      const cloned = await git(["clone", trunkUrl, dir]);
      assertEquals(cloned.code, 0, cloned.stderr);
      assertEquals(
        cloned.stderr.includes("remote HEAD refers to nonexistent ref"),
        false,
        cloned.stderr,
      );
      assertEquals(
        (await runOk("git", ["branch", "--show-current"], { cwd: dir, env })).trim(),
        "trunk",
      );
      // A later branch does not move it: checked once that push's recording (which ends with
      // the push time) is done.
      const pushedAt = async () =>
        (await (await fetch(`${server.httpUrl}/api/repos/alice/trunky`)).json()).repo?.pushed_at;
      const before = await pollUntil(pushedAt, (at) => at != null);
      const second = await git(["-c", auth, "push", trunkUrl, "main:another"], work);
      assertEquals(second.code, 0, second.stderr);
      await pollUntil(pushedAt, (at) => at !== before);
      assertEquals((await Deno.readTextFile(headFile)).trim(), "ref: refs/heads/trunk");
    },
  );

  await t.step("non-owner push is refused and leaves the repo unchanged", async () => {
    const before = await remoteHead();
    await commit("evil");
    const basic = await git(
      ["push", url.replace("http://", `http://bob:${bobToken}@`), "main"],
      work,
    );
    assert(basic.code !== 0);
    // git shows a refusal's reason only when it is plain text: it gets one, other clients JSON.
    assertStringIncludes(
      basic.stderr,
      "remote: bob may not push to alice/hello: only its owner may",
    );
    const bearer = await pushWithBearer(bobToken);
    assert(bearer.code !== 0);
    assertStringIncludes(bearer.stderr, "remote: bob may not push to alice/hello");
    const res = await fetch(`${url}/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `Bearer ${bobToken}` },
    });
    assertEquals(res.status, 403);
    assertEquals(await res.json(), {
      error: "bob may not push to alice/hello: only its owner may",
    });
    const post = await fetch(`${url}/git-receive-pack`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${bobToken}`,
        "Content-Type": "application/x-git-receive-pack-request",
      },
      body: "0000",
    });
    assertEquals(post.status, 403);
    await post.body?.cancel();
    assertEquals(await remoteHead(), before);
    await runOk("git", ["reset", "-q", "--hard", "HEAD~1"], { cwd: work, env });
  });

  await t.step(
    "token of bob with Basic user alice is refused; a changed character is 401",
    async () => {
      const mixed = await fetch(`${url}/info/refs?service=git-receive-pack`, {
        headers: { Authorization: `Basic ${btoa(`alice:${bobToken}`)}` },
      });
      assertEquals(mixed.status, 403);
      await mixed.body?.cancel();
      const flipped = alteredToken(aliceToken);
      const bad = await fetch(`${url}/info/refs?service=git-receive-pack`, {
        headers: { Authorization: `Basic ${btoa(`alice:${flipped}`)}` },
      });
      assertEquals(bad.status, 401);
      await bad.body?.cancel();
    },
  );

  await t.step("unknown repo 404, traversal and dumb protocol refused", async () => {
    const paths = [
      "/alice/nope.git/info/refs?service=git-upload-pack",
      "/alice/%2e%2e/info/refs?service=git-upload-pack",
      "/alice/..%2fbob/info/refs?service=git-upload-pack",
      "/%2e%2e/hello.git/info/refs?service=git-upload-pack",
      "/alice/-x.git/info/refs?service=git-upload-pack",
      "/alice/hello.git/info/refs",
      "/alice/hello.git/HEAD",
      "/alice/hello.git/objects/info/packs",
      "/alice/hello.git/config",
      "/alice/hello.git/info/refs?service=git-upload-archive",
    ];
    for (const p of paths) {
      const res = await fetch(`${server.httpUrl}${p}`);
      assert(res.status >= 400 && res.status < 500, `${p}: ${res.status}`);
      await res.body?.cancel();
    }
    const ok = await fetch(`${url}/info/refs?service=git-upload-pack`);
    assertEquals(ok.status, 200);
    assertStringIncludes(ok.headers.get("Content-Type") ?? "", "git-upload-pack-advertisement");
    await ok.body?.cancel();
  });

  await t.step(
    "a name never created gets no lock file; a repository without one still serves",
    async () => {
      const dir = `${server.dataDir}/repos/alice`;
      const res = await fetch(`${server.httpUrl}/alice/nope.git/info/refs?service=git-upload-pack`);
      assertEquals(res.status, 404);
      await res.body?.cancel();
      const names = (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
      assert(!names.some((n) => n.startsWith("nope")), names.join(", "));
      // A repository made before lock files existed (or restored without them) has none.
      await Deno.remove(`${dir}/hello.git.lock`);
      const r = await git(["ls-remote", url]);
      assertEquals(r.code, 0, r.stderr);
      assert(await Deno.stat(`${dir}/hello.git.lock`), "the lock file is made on first use");
    },
  );

  await t.step(
    "anonymous reads of a name with files but no row (a delete under way) are 404, nothing of git's sent",
    async () => {
      await createRepo(server, aliceToken, "gone");
      const gone = `${server.httpUrl}/alice/gone.git`;
      const authed = gone.replace("http://", `http://alice:${aliceToken}@`);
      assertEquals((await git(["push", "-q", authed, "main"], work)).code, 0);
      const del = await fetch(`${server.httpUrl}/api/repos/alice/gone`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${aliceToken}` },
      });
      assertEquals(del.status, 200, await del.text());
      assert(await Deno.stat(`${server.dataDir}/repos/alice/gone.git.lock`));
      // As in the moment of a delete between its row and its directory: files, but no row.
      const ghost = `${server.dataDir}/repos/alice/gone.git`;
      await runOk("cp", ["-r", `${server.dataDir}/repos/alice/hello.git`, ghost]);
      for (const proto of ["version=2", ""]) {
        const headers: Record<string, string> = proto ? { "Git-Protocol": proto } : {};
        const advert = await fetch(`${gone}/info/refs?service=git-upload-pack`, { headers });
        assertEquals(advert.status, 404, proto);
        assertEquals(await advert.json(), { error: "repository alice/gone not found" });
        const post = await postLsRefs(gone, headers);
        assertEquals(post.status, 404, proto);
        assertEquals(await post.json(), { error: "repository alice/gone not found" });
        // What is wrong with the request comes second to the repository being gone.
        const badType = await postLsRefs(gone, headers, "text/plain");
        assertEquals(badType.status, 404, proto);
        await badType.body?.cancel();
      }
      const r = await git(["ls-remote", gone]);
      assert(r.code !== 0);
      assertStringIncludes(r.stderr, "remote: repository alice/gone not found");
      assert(!r.stdout.includes("refs/heads/main"), r.stdout);
      await Deno.remove(ghost, { recursive: true });
      // Made again, the name serves the new repository.
      await createRepo(server, aliceToken, "gone");
      const again = await git(["ls-remote", gone]);
      assertEquals(again.code, 0, again.stderr);
      assertEquals(again.stdout.trim(), "");
    },
  );

  await t.step("a read with a bad token is 401 and gets nothing of git's", async () => {
    const flipped = alteredToken(aliceToken);
    for (const proto of ["version=2", ""]) {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${flipped}`,
        ...(proto ? { "Git-Protocol": proto } : {}),
      };
      const advert = await fetch(`${url}/info/refs?service=git-upload-pack`, { headers });
      assertEquals(advert.status, 401, proto);
      assertEquals(advert.headers.get("WWW-Authenticate"), 'Basic realm="service"');
      assertEquals(typeof (await advert.json()).error, "string");
      const post = await postLsRefs(url, headers);
      assertEquals(post.status, 401, proto);
      assertEquals(typeof (await post.json()).error, "string");
    }
    const bad = await git([
      "-c",
      `http.extraHeader=Authorization: Bearer ${flipped}`,
      "ls-remote",
      url,
    ]);
    assert(bad.code !== 0);
    assert(!bad.stdout.includes("refs/heads/main"), bad.stdout);
    const good = await git([
      "-c",
      `http.extraHeader=Authorization: Bearer ${aliceToken}`,
      "ls-remote",
      url,
    ]);
    assertEquals(good.code, 0, good.stderr);
    assertStringIncludes(good.stdout, "refs/heads/main");
  });

  await t.step("large (gzip-encoded) fetch requests work", async () => {
    // 80 branches make the want list exceed 1 KiB, so git gzips the upload-pack request.
    for (let i = 0; i < 80; i++) {
      await runOk("git", ["branch", `b${i}`], { cwd: work, env });
    }
    const authed = url.replace("http://", `http://alice:${aliceToken}@`);
    assertEquals((await git(["push", "-q", authed, "--all"], work)).code, 0);
    for (const proto of ["2", "0"]) {
      const dir = `${home}/many-v${proto}`;
      const r = await git([
        "-c",
        `protocol.version=${proto}`,
        "clone",
        "-q",
        "--mirror",
        url,
        dir,
      ], undefined);
      assertEquals(r.code, 0, r.stderr);
      const refs = await runOk("git", ["for-each-ref", "refs/heads"], { cwd: dir, env });
      assertEquals(refs.trim().split("\n").length, 81);
    }
  });

  await t.step("push records the push time", async () => {
    // The push's bookkeeping follows the answer to git.
    const repo = await pollUntil(
      async () => (await (await fetch(`${server.httpUrl}/api/repos/alice/hello`)).json()),
      (body) => body.repo?.pushed_at != null,
    );
    assert(repo.repo.pushed_at !== null);
  });

  await t.step("a 12 MB push (more than the body kept in memory) arrives intact", async () => {
    const big = new Uint8Array(12 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 65536) {
      crypto.getRandomValues(big.subarray(i, i + 65536));
    }
    await Deno.writeFile(`${work}/big.bin`, big);
    await runOk("git", ["-c", "core.compression=0", "add", "big.bin"], { cwd: work, env });
    await runOk("git", ["commit", "-q", "-m", "big"], { cwd: work, env });
    const authed = url.replace("http://", `http://alice:${aliceToken}@`);
    const r = await git(["-c", "pack.compression=0", "push", authed, "main"], work);
    assertEquals(r.code, 0, r.stderr);
    const stored = await new Deno.Command("git", {
      args: [
        "--git-dir",
        `${server.dataDir}/repos/alice/hello.git`,
        "cat-file",
        "blob",
        "main:big.bin",
      ],
      env,
      stdout: "piped",
    }).output();
    assertEquals(stored.code, 0);
    assertEquals(stored.stdout.length, big.length);
    assert(stored.stdout.every((b, i) => b === big[i]), "pushed blob differs");
  });
});
