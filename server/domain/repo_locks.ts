/**
 * Locks of one repository name across every process sharing the repositories (instances on one
 * data dir, on NFS too): an advisory file lock (`flock`) on `<repos>/<owner>/<name>.git.lock`,
 * beside the repository. Every git transfer holds it shared for as long as its git runs; creating
 * and deleting the repository hold it exclusively. The kernel releases a dead process's locks, so
 * a crash never leaves one behind. Lock files are never deleted (that would race with lockers).
 *
 * A deleted repository's directory is first renamed into `<repos>/.trash/` (atomic: the name is
 * free at once, and a crash never leaves a half-deleted directory at it), then removed.
 */
import type { RepoRow } from "../../db/repos.ts";
import { DomainError } from "../../protocol/errors.ts";
import { randomHex } from "../../protocol/secrets.ts";
import { validateRepoName, validateUsername } from "../../protocol/names.ts";
import type { Signet } from "../context.ts";
import { log } from "../log.ts";

/** The directory deleted repositories are moved to before they are removed. */
export function trashDir(ctx: Signet): string {
  return `${ctx.config.reposDir}/.trash`;
}

function lockPath(ctx: Signet, owner: string, name: string): string {
  // One lock for names a case-insensitive file system would take for one directory.
  return `${ctx.config.reposDir}/${owner}/${name.toLowerCase()}.git.lock`;
}

function notFound(repo: { owner: string; name: string }): DomainError {
  return new DomainError("not_found", `repository ${repo.owner}/${repo.name} not found`);
}

/** Opens (creating it unless `create` is false) and locks `path`, waiting for the lock. */
async function lock(path: string, exclusive: boolean, create = true): Promise<() => void> {
  const file = await Deno.open(path, { read: true, write: true, create, mode: 0o600 });
  try {
    await file.lock(exclusive);
  } catch (err) {
    file.close();
    throw err;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      file.close(); // closing the last descriptor releases the lock
    } catch { /* closed already */ }
  };
}

/**
 * Holds `repo` for a git transfer: its name's lock, shared, once no create or delete of it runs,
 * and then only while its row is still the same one (a delete removes the row first, so
 * transfers arriving during a delete are refused rather than delaying it). Throws
 * DomainError("not_found") when the repository is gone; call the returned function once git is
 * done.
 */
export async function holdRepo(ctx: Signet, repo: RepoRow): Promise<() => void> {
  let release: () => void;
  try {
    release = await lock(lockPath(ctx, repo.owner, repo.name), false);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw notFound(repo); // its owner's directory went
    throw err;
  }
  try {
    if ((await ctx.store.repos.find(repo.owner, repo.name))?.id !== repo.id) throw notFound(repo);
    return release;
  } catch (err) {
    release();
    throw err;
  }
}

/** A repository name held for a git transfer before its row is read (see holdRepoName). */
export interface HeldName {
  /** The row, read once: DomainError("not_found") when there is none. */
  find(): Promise<RepoRow>;
  /** Ends the hold (once git is done); extra calls do nothing. */
  release(): void;
}

/**
 * Holds the (validated) name `owner/name` for a git transfer without reading its row yet: its lock
 * is taken, shared, when its lock file exists (the file is made with the repository, so a name
 * never created has none, and no file is made for it here). Null when there is none. While the
 * lock is held no create or delete of the name runs on any instance, so the directory is the one
 * of the row `find` reads; a delete removes the row first, so `find` refuses a transfer that
 * arrives during one rather than delaying it.
 */
export async function holdRepoName(
  ctx: Signet,
  owner: string,
  name: string,
): Promise<HeldName | null> {
  let release: () => void;
  try {
    release = await lock(lockPath(ctx, owner, name), false, false);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  return { release, find: () => findRow(ctx, owner, name) };
}

/** The row of `owner/name`; DomainError("not_found") when there is none. */
async function findRow(ctx: Signet, owner: string, name: string): Promise<RepoRow> {
  const repo = await ctx.store.repos.find(owner, name);
  if (!repo) throw notFound({ owner, name });
  return repo;
}

/**
 * Finds the repository `owner/name` and holds it for a git transfer, as `holdRepo` does, with one
 * look-up of its row instead of two: the name's lock is taken first (holdRepoName), then the row
 * is read once. A repository made before lock files existed has none yet: it is found and held
 * the long way. Throws DomainError("invalid") for a bad name and ("not_found") when there is no
 * such repository; call the returned `release` once git is done.
 */
export async function findAndHoldRepo(
  ctx: Signet,
  ownerInput: string,
  nameInput: string,
): Promise<{ repo: RepoRow; release: () => void }> {
  const owner = validateUsername(ownerInput);
  const name = validateRepoName(nameInput);
  const held = await holdRepoName(ctx, owner, name);
  if (!held) {
    const repo = await findRow(ctx, owner, name);
    return { repo, release: await holdRepo(ctx, repo) };
  }
  try {
    return { repo: await held.find(), release: held.release };
  } catch (err) {
    held.release();
    throw err;
  }
}

/**
 * Runs `fn` holding the name `owner/name` exclusively: no transfer of it runs, and no other
 * create or delete of it, on any instance. Creates the owner's directory.
 */
export async function withRepoName<T>(
  ctx: Signet,
  owner: string,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  await Deno.mkdir(`${ctx.config.reposDir}/${owner}`, { recursive: true });
  const release = await lock(lockPath(ctx, owner, name), true);
  try {
    return await fn();
  } finally {
    release();
  }
}

/**
 * Moves the directory `dir` (held with withRepoName) into the trash; returns where it went, or
 * null when there was none.
 */
export async function moveToTrash(ctx: Signet, dir: string, label: string): Promise<string | null> {
  const trash = trashDir(ctx);
  await Deno.mkdir(trash, { recursive: true, mode: 0o700 });
  const target = `${trash}/${label}.${randomHex(8)}`;
  try {
    await Deno.rename(dir, target);
    return target;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** Removes a trashed directory; a failure is logged and left for `emptyTrash`. */
export async function removeTrashed(path: string | null): Promise<void> {
  if (path === null) return;
  await Deno.remove(path, { recursive: true }).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return;
    log("warn", "could not remove a deleted repository's files", {
      path,
      error: String(err),
    });
  });
}

/**
 * Removes what is left in the trash (a crash between the move and the removal, or a removal
 * that failed); returns how many entries it removed. Nothing uses a trashed directory: it was
 * moved while no transfer held its name.
 */
export async function emptyTrash(ctx: Signet): Promise<number> {
  let removed = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(trashDir(ctx)));
  } catch {
    return 0;
  }
  for (const e of entries) {
    try {
      await Deno.remove(`${trashDir(ctx)}/${e.name}`, { recursive: true });
      removed++;
    } catch { /* another instance is removing it, or it failed again: next time */ }
  }
  return removed;
}
