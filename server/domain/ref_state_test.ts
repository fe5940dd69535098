/** The refs' state read from a bare repository's files follows every ref change git makes. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { runOk } from "../../testing/run.ts";
import { refState } from "./ref_state.ts";

Deno.test("ref state: changes with each ref update, packing, HEAD; not with a lock", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-refstate-" });
  try {
    const repo = `${dir}/r.git`;
    const env = {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
      HOME: dir,
    };
    const git = (...args: string[]) => runOk("git", ["--git-dir", repo, ...args], { env });
    await runOk("git", ["init", "-q", "--bare", "-b", "main", repo]);
    const seen = [await refState(repo)];
    const tree = (await git("mktree")).trim();
    const one = (await git("commit-tree", tree, "-m", "one")).trim();
    await git("update-ref", "refs/heads/main", one);
    seen.push(await refState(repo));
    const two = (await git("commit-tree", tree, "-p", one, "-m", "two")).trim();
    await git("update-ref", "refs/heads/main", two);
    seen.push(await refState(repo));
    await git("update-ref", "refs/tags/v1", one);
    seen.push(await refState(repo));
    await git("pack-refs", "--all");
    const packed = await refState(repo);
    await git("update-ref", "refs/heads/main", one);
    seen.push(await refState(repo));
    await git("symbolic-ref", "HEAD", "refs/heads/other");
    seen.push(await refState(repo));
    assertEquals(new Set(seen).size, seen.length, "every change shows");
    // Packing moves refs between files; the state is of the files, so it changes too, and is
    // stable while nothing changes.
    assert(packed !== seen[3]);
    assertEquals(await refState(repo), seen.at(-1));
    // A lock of an update under way is not the ref.
    await Deno.writeTextFile(`${repo}/refs/heads/main.lock`, `${two}\n`);
    assertEquals(await refState(repo), seen.at(-1));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
