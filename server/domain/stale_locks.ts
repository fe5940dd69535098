/**
 * Recovers a bare repository from files a killed git left behind: ref and config lock files
 * (`refs/**\/*.lock`, `packed-refs.lock`, `HEAD.lock`, `config.lock`, `shallow.lock`), push
 * quarantine directories (`objects/tmp_objdir-incoming-*`) and half-written packs
 * (`objects/pack/tmp_*`). git removes all of these itself when it exits or is signalled; only a
 * `kill -9` of git (or a power loss) leaves them, and then a stale ref lock refuses every later
 * push to that ref ("Unable to create '…/main.lock': File exists").
 *
 * A file counts as stale only when its modification time is older than a cutoff the caller picks:
 * git holds a ref lock for the milliseconds of one ref transaction, so a lock older than any live
 * git process could have made is safe to remove (git's own rule for its lock files).
 */
import { log } from "../log.ts";
import { KeyedLock } from "./keyed_lock.ts";

/**
 * Recoveries of one repository run one at a time, so one never removes a lock that git made
 * after another recovery removed the stale one before it (a lock is only ever removed by the
 * recovery that saw it old).
 */
const recoveries = new KeyedLock();

/** Top-level files of a bare repository that git guards with a `.lock` beside them. */
const TOP_LEVEL_LOCKS = ["HEAD.lock", "config.lock", "packed-refs.lock", "shallow.lock"];

/** A lock or temporary file removed, with its age when it was removed. */
export interface StaleFile {
  path: string;
  ageMs: number;
}

/**
 * Removes the stale lock and temporary files of the bare repository at `dir` whose modification
 * time is before `cutoffMs` (epoch ms); returns what it removed. `locksOnly` skips the temporary
 * object files (they waste space but refuse nothing). Missing files and directories are skipped; it
 * never follows symbolic links.
 */
export function removeStaleGitFiles(
  dir: string,
  cutoffMs: number,
  { locksOnly = false } = {},
): Promise<StaleFile[]> {
  return recoveries.run(dir, () => removeOldFiles(dir, cutoffMs, locksOnly));
}

async function removeOldFiles(
  dir: string,
  cutoffMs: number,
  locksOnly: boolean,
): Promise<StaleFile[]> {
  const removed: StaleFile[] = [];
  const now = Date.now();
  const consider = async (path: string, recursive = false) => {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch {
      return;
    }
    const mtime = info.mtime?.getTime() ?? now;
    if (info.isSymlink || mtime >= cutoffMs) return;
    try {
      await Deno.remove(path, { recursive });
      removed.push({ path, ageMs: now - mtime });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  };
  for (const name of TOP_LEVEL_LOCKS) await consider(`${dir}/${name}`);
  for (const lock of await refLocks(`${dir}/refs`)) await consider(lock);
  if (locksOnly) return removed;
  for (const entry of await entries(`${dir}/objects`)) {
    if (entry.isDirectory && entry.name.startsWith("tmp_objdir-incoming-")) {
      await consider(`${dir}/objects/${entry.name}`, true);
    }
  }
  for (const entry of await entries(`${dir}/objects/pack`)) {
    if (entry.isFile && entry.name.startsWith("tmp_")) {
      await consider(`${dir}/objects/pack/${entry.name}`);
    }
  }
  return removed;
}

/** Every `*.lock` file below `refsDir`, without following symbolic links. */
async function refLocks(refsDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string) => {
    for (const entry of await entries(path)) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) await walk(child);
      else if (entry.isFile && entry.name.endsWith(".lock")) found.push(child);
    }
  };
  await walk(refsDir);
  return found;
}

async function entries(path: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(path));
  } catch {
    return [];
  }
}

/**
 * How old a lock must be before a push removes it: git's ref transactions hold their locks for
 * milliseconds, so 30 s is far beyond any live one, even on a slow disk.
 */
export const STALE_LOCK_AGE_MS = 30_000;

/**
 * A lock last written this long before this process started is stale too: this process had
 * started no git yet, and no other process holds a ref lock that long.
 */
const START_MARGIN_MS = 2_000;

/** When this process started (this module loads before any listener opens). */
const processStartedMs = Date.now();

/**
 * The cutoff at `now`: files last written before it are stale. Right after a start (a crash and
 * a quick restart) it is the start itself, later STALE_LOCK_AGE_MS before `now`.
 */
export function staleCutoff(now: number, startedMs = processStartedMs): number {
  return Math.max(now - STALE_LOCK_AGE_MS, startedMs - START_MARGIN_MS);
}

/**
 * Before a push to `dir`: removes the lock files a crashed git (of this or another process, or a
 * previous run) left behind, so they do not refuse this push. Logs what it removed.
 */
export async function recoverBeforePush(dir: string, now = Date.now()): Promise<void> {
  const removed = await removeStaleGitFiles(dir, staleCutoff(now), { locksOnly: true }).catch(
    (err) => {
      log("warn", "stale lock check failed", { repo_dir: dir, error: String(err) });
      return [];
    },
  );
  if (removed.length > 0) logRemoved(removed, "before push");
}

/**
 * How old a temporary file (push quarantine, half-written pack) must be before a start removes it
 * when other instances share the repositories: one of theirs may still be receiving a slow push.
 */
export const SHARED_TEMPORARY_AGE_MS = 24 * 3600_000;

/**
 * After start-up, in the background: removes stale lock and temporary files (abandoned push
 * quarantines, half-written packs) in every repository under `reposDir` (laid out
 * `<owner>/<name>.git`), so disk a crash left behind is reclaimed even in repositories nobody
 * pushes to. Pushes do not wait for it: each checks its own repository first. `shared`: other
 * instances may be running git in these repositories now (PostgreSQL): their ref locks live for
 * milliseconds, so the usual cutoff holds for locks, but a push they are still receiving keeps its
 * quarantine for as long as it lasts, so temporary files count as stale only after
 * SHARED_TEMPORARY_AGE_MS. Returns how many files it removed.
 */
export async function recoverAtStart(
  reposDir: string,
  now = Date.now(),
  { shared = false } = {},
): Promise<number> {
  const removed: StaleFile[] = [];
  for (const owner of await entries(reposDir)) {
    if (!owner.isDirectory) continue;
    for (const repo of await entries(`${reposDir}/${owner.name}`)) {
      if (!repo.isDirectory || !repo.name.endsWith(".git")) continue;
      const dir = `${reposDir}/${owner.name}/${repo.name}`;
      if (shared) {
        removed.push(...await removeStaleGitFiles(dir, staleCutoff(now), { locksOnly: true }));
        removed.push(...await removeStaleGitFiles(dir, now - SHARED_TEMPORARY_AGE_MS));
      } else removed.push(...await removeStaleGitFiles(dir, staleCutoff(now)));
    }
  }
  if (removed.length > 0) logRemoved(removed, "at start");
  return removed.length;
}

function logRemoved(removed: StaleFile[], when: string): void {
  for (const file of removed) {
    log("warn", "removed stale git file", {
      when,
      path: file.path,
      age_s: Math.round(file.ageMs / 1000),
    });
  }
}
