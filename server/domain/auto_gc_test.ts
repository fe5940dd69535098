/** git's gc --auto after a push (real git, real repositories). */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import type { Signet } from "../context.ts";
import { autoGc } from "./auto_gc.ts";
import { serverGitConfig } from "./git.ts";
import { gitEnv, runOk } from "../../testing/run.ts";
import { packCount } from "../../tests/helpers/git.ts";

const ctx = {
  config: { gitPath: Deno.env.get("PATH") ?? "/usr/bin:/bin", dataDir: "/tmp", maxPushBytes: 1e9 },
} as unknown as Signet;
const home = await Deno.makeTempDir({ prefix: "signet-autogc-home-" });

/** Runs git with an author and no system or user configuration; returns its trimmed stdout. */
async function git(args: string[], cwd?: string): Promise<string> {
  return (await runOk("git", args, { cwd, env: gitEnv(home) })).trim();
}

/**
 * A bare repository that received `pushes` pushes of one commit each with Signet's server
 * configuration (one pack per push, no gc inside the push), and `config` in its own config file.
 */
async function pushedTo(pushes: number, config: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "signet-autogc-" });
  const bare = `${root}/r.git`;
  await git(["init", "-q", "--bare", "--initial-branch=main", bare]);
  for (const [key, value] of Object.entries(config)) {
    await git(["--git-dir", bare, "config", key, value]);
  }
  const work = `${root}/w`;
  await git(["init", "-q", "-b", "main", work]);
  const server = Object.entries(serverGitConfig(1e9)).map(([k, v]) => `${k}=${v}`);
  for (let i = 0; i < pushes; i++) {
    await Deno.writeTextFile(`${work}/f`, `${i}\n`);
    await git(["add", "f"], work);
    await git(["commit", "-q", "-m", `c${i}`], work);
    await git([
      "push",
      "-q",
      `--receive-pack=env ${server.join(" ")} git-receive-pack`,
      bare,
      "main",
    ], work);
  }
  return bare;
}

Deno.test("a push leaves its pack; gc --auto merges the packs once there are more than the limit", async () => {
  const bare = await pushedTo(4, { "gc.autoPackLimit": "2", "gc.autoDetach": "false" });
  assertEquals(packCount(bare), 4, "receive-pack ran no gc of its own");
  assert(await autoGc(ctx, bare));
  assertEquals(packCount(bare), 1);
  assertEquals(await git(["--git-dir", bare, "rev-list", "--count", "main"]), "4");
  await Deno.remove(bare.slice(0, -"/r.git".length), { recursive: true });
});

Deno.test("gc --auto leaves a repository under git's limits as it is", async () => {
  const bare = await pushedTo(2, {});
  assert(await autoGc(ctx, bare));
  assertEquals(packCount(bare), 2);
  await Deno.remove(bare.slice(0, -"/r.git".length), { recursive: true });
});

Deno.test("gc --auto on a directory that is not a repository reports failure without throwing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-autogc-" });
  assertEquals(await autoGc(ctx, `${dir}/gone.git`), false);
  await Deno.remove(dir, { recursive: true });
});
