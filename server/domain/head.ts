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
  if (head === null || branchExists(dir, head)) return null;
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
  // having pointed HEAD at an existing branch meanwhile, wins, and HEAD is left as it is. The
  // lock is held for a few system calls within one turn of the event loop (synchronous calls), as
  // git holds its own: a kill in between leaves a lock as rarely as a killed git does, and the
  // stale-lock rules then apply (stale_locks.ts).
  const lock = `${dir}/HEAD.lock`;
  try {
    Deno.writeTextFileSync(lock, `ref: refs/heads/${chosen}\n`, { createNew: true });
  } catch {
    return null;
  }
  try {
    const now = headIn(Deno.readTextFileSync(`${dir}/HEAD`));
    if (now === null || branchExists(dir, now) || !branchExists(dir, chosen)) {
      Deno.removeSync(lock);
      return null;
    }
    Deno.renameSync(lock, `${dir}/HEAD`);
    return chosen;
  } catch {
    try {
      Deno.removeSync(lock);
    } catch { /* gone already */ }
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
  return headIn(await Deno.readTextFile(`${dir}/HEAD`).catch(() => ""));
}

// The branch a HEAD file's text names, or null.
function headIn(text: string): string | null {
  const line = text.trim();
  return line.startsWith("ref: refs/heads/") ? line.slice("ref: refs/heads/".length) : null;
}

// Whether refs/heads/<name> exists, loose or packed (synchronous: it runs under HEAD.lock).
function branchExists(dir: string, name: string): boolean {
  const ref = `refs/heads/${name}`;
  try {
    if (Deno.statSync(`${dir}/${ref}`).isFile) return true;
  } catch { /* not loose */ }
  try {
    return Deno.readTextFileSync(`${dir}/packed-refs`).split("\n").some((l) =>
      l.endsWith(` ${ref}`)
    );
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
