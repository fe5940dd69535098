/** HEAD after a push: pointed at a branch only when it names none (real git, real repositories). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import type { Signet } from "../context.ts";
import { repairHead } from "./head.ts";

const ctx = {
  config: { gitPath: Deno.env.get("PATH") ?? "/usr/bin:/bin", dataDir: "/tmp" },
} as unknown as Signet;

async function git(args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
    stderr: "piped",
    stdout: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** A bare repository as Signet makes it (HEAD at main) holding `branches`, one commit each. */
async function bareWith(branches: string[], pack = false): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "signet-head-" });
  const bare = `${root}/r.git`;
  await git(["init", "-q", "--bare", "--initial-branch=main", bare]);
  if (branches.length) {
    const work = `${root}/w`;
    await git(["init", "-q", work]);
    await git(["commit", "-q", "--allow-empty", "-m", "c"], work);
    for (const b of branches) await git(["push", "-q", bare, `HEAD:refs/heads/${b}`], work);
    if (pack) await git(["--git-dir", bare, "pack-refs", "--all"]);
  }
  return bare;
}

/** Removes the temporary directory of `bare`. */
const drop = (...bares: string[]) =>
  Promise.all(bares.map((b) => Deno.remove(b.replace(/\/r\.git$/, ""), { recursive: true })));

const head = (bare: string) => Deno.readTextFile(`${bare}/HEAD`).then((t) => t.trim());

Deno.test("a HEAD naming no branch is pointed at the only branch pushed", async () => {
  const bare = await bareWith(["trunk"]);
  assertEquals(await repairHead(ctx, bare), "trunk");
  assertEquals(await head(bare), "ref: refs/heads/trunk");
  // It then stays, whatever comes next.
  await git(["--git-dir", bare, "branch", "aaa", "trunk"]);
  assertEquals(await repairHead(ctx, bare), null);
  assertEquals(await head(bare), "ref: refs/heads/trunk");
  await drop(bare);
});

Deno.test("among several branches: main, else master, else the first by name", async () => {
  const withMaster = await bareWith(["zeta", "master", "alpha"]);
  assertEquals(await repairHead(ctx, withMaster), "master");
  const byName = await bareWith(["zeta", "beta"]);
  assertEquals(await repairHead(ctx, byName), "beta");
  await drop(withMaster, byName);
});

Deno.test("HEAD is left alone when its branch exists, loose or packed, or nothing was pushed", async () => {
  const loose = await bareWith(["main", "trunk"]);
  assertEquals(await repairHead(ctx, loose), null);
  const packed = await bareWith(["main", "trunk"], true);
  assertEquals(await repairHead(ctx, packed), null);
  assertEquals(await head(packed), "ref: refs/heads/main");
  const empty = await bareWith([]);
  assertEquals(await repairHead(ctx, empty), null);
  assertEquals(await head(empty), "ref: refs/heads/main");
  await drop(loose, packed, empty);
});

Deno.test("while HEAD.lock is held (git or another repair), HEAD and the lock are left alone", async () => {
  const bare = await bareWith(["trunk"]);
  await Deno.writeTextFile(`${bare}/HEAD.lock`, "someone else's\n");
  assertEquals(await repairHead(ctx, bare), null);
  assertEquals(await head(bare), "ref: refs/heads/main");
  assertEquals(await Deno.readTextFile(`${bare}/HEAD.lock`), "someone else's\n");
  await drop(bare);
});
