/**
 * A repository's HEAD after a push. `git init` points HEAD at `main`, so a repository whose pushes
 * brought other branches only (`trunk`) kept a HEAD naming no branch: clones checked nothing out
 * ("remote HEAD refers to nonexistent ref") and the pages guessed a default that changed with the
 * next push. After each push, when HEAD names a branch that does not exist and some branch does,
 * HEAD is pointed at one: `main`, else `master`, else the first by name. It then stays: a HEAD
 * naming an existing branch is never moved.
 */
import type { Signet } from "../context.ts";
import { gitServerEnv } from "./git.ts";

/**
 * Points the HEAD of the bare repository at `dir` at an existing branch when it names none (see
 * the module doc); returns the branch it chose, or null when HEAD was left alone. Reading HEAD and
 * the branch it names costs file reads only, so every push can afford it. Never throws.
 */
export async function repairHead(ctx: Signet, dir: string): Promise<string | null> {
  const head = await readHead(dir);
  if (head === null || await branchExists(dir, head)) return null;
  const listed = await git(ctx, dir, [
    "for-each-ref",
    "--format=%(refname:strip=2)",
    "refs/heads/",
  ]);
  if (listed === null) return null;
  const branches = listed.split("\n").filter((b) => b !== "");
  if (branches.length === 0) return null; // nothing pushed yet: HEAD waits for the first branch
  const chosen = defaultBranchOf(branches)!;
  // Compare and set under git's own lock file: another push's repair (or git) holding it, or
  // having pointed HEAD at an existing branch meanwhile, wins, and HEAD is left as it is.
  const lock = `${dir}/HEAD.lock`;
  try {
    await Deno.writeTextFile(lock, `ref: refs/heads/${chosen}\n`, { createNew: true });
  } catch {
    return null;
  }
  try {
    const now = await readHead(dir);
    if (now === null || await branchExists(dir, now) || !await branchExists(dir, chosen)) {
      await Deno.remove(lock);
      return null;
    }
    await Deno.rename(lock, `${dir}/HEAD`);
    return chosen;
  } catch {
    await Deno.remove(lock).catch(() => {});
    return null;
  }
}

/**
 * The default branch among `branches` (names): `main`, else `master`, else the first by name; null
 * when there is none.
 */
export function defaultBranchOf(branches: string[]): string | null {
  return ["main", "master"].find((b) => branches.includes(b)) ?? [...branches].sort()[0] ?? null;
}

/**
 * The branch HEAD names (`ref: refs/heads/<name>`) in the bare repository at `dir`, from its file;
 * null when it is detached or unreadable.
 */
export async function readHead(dir: string): Promise<string | null> {
  try {
    const text = (await Deno.readTextFile(`${dir}/HEAD`)).trim();
    return text.startsWith("ref: refs/heads/") ? text.slice("ref: refs/heads/".length) : null;
  } catch {
    return null;
  }
}

// Whether refs/heads/<name> exists, loose or packed.
async function branchExists(dir: string, name: string): Promise<boolean> {
  const ref = `refs/heads/${name}`;
  if (await Deno.stat(`${dir}/${ref}`).then((s) => s.isFile, () => false)) return true;
  try {
    const packed = await Deno.readTextFile(`${dir}/packed-refs`);
    return packed.split("\n").some((line) => line.endsWith(` ${ref}`));
  } catch {
    return false;
  }
}

// Runs git in `dir`; its stdout, or null when it failed.
async function git(ctx: Signet, dir: string, args: string[]): Promise<string | null> {
  const out = await new Deno.Command("git", {
    args: ["--git-dir", dir, ...args],
    env: gitServerEnv(ctx),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  return out?.success ? new TextDecoder().decode(out.stdout) : null;
}
