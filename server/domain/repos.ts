/** Repositories: creation, deletion, listing and on-disk locations. */
import type { RepoRow, RepoSort } from "../../db/repos.ts";
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { mustOwn } from "./access.ts";
import { DomainError } from "../../protocol/errors.ts";
import { validateRepoName, validateUsername } from "../../protocol/names.ts";
import type { RepoView } from "../../protocol/repos.ts";
import { holdRepo, moveToTrash, removeTrashed, withRepoName } from "./repo_locks.ts";
import { autoGc } from "./auto_gc.ts";
import { dirSize } from "./disk.ts";
import type { Page } from "../../db/pages.ts";
import { type ListParams, listParamsParser } from "./listing.ts";
import { log } from "../log.ts";
import { trackTransfer } from "../transfers.ts";
import { repairHead } from "./head.ts";
import { hasRefs } from "./ref_state.ts";

/** Absolute path of the bare repository `<repos>/<owner>/<name>.git`. */
export function repoDir(ctx: Signet, owner: string, name: string): string {
  return `${ctx.config.reposDir}/${owner}/${name}.git`;
}

/** The public HTTP base URL (SERVICE_BASE_URL, else derived from the HTTP bind). */
export function baseUrl(ctx: Signet): string {
  if (ctx.config.baseUrl) return ctx.config.baseUrl;
  const bind = ctx.config.httpBind;
  const host = !bind || bind.hostname === "0.0.0.0" || bind.hostname === "::"
    ? "localhost"
    : bind.hostname;
  return `http://${host}:${bind?.port ?? 8080}`;
}

/** The host name users reach Signet at, for SSH URLs and messages. */
export function publicHost(ctx: Signet): string {
  return new URL(baseUrl(ctx)).hostname;
}

/** The SSH clone URL of `owner/name`, or null when SSH is off. */
export function sshCloneUrl(ctx: Signet, owner: string, name: string): string | null {
  const port = ctx.sshPort;
  if (port === null) return null;
  return port === 22
    ? `git@${publicHost(ctx)}:${owner}/${name}.git`
    : `ssh://git@${publicHost(ctx)}:${port}/${owner}/${name}.git`;
}

/** Shapes a stored repository for API output, with its clone URLs. */
export function repoView(ctx: Signet, r: RepoRow): RepoView {
  const ssh = sshCloneUrl(ctx, r.owner, r.name);
  return {
    owner: r.owner,
    name: r.name,
    created_at: r.created_at,
    pushed_at: r.pushed_at,
    clone_urls: { http: `${baseUrl(ctx)}/${r.owner}/${r.name}.git`, ssh },
  };
}

/** Looks up `owner/name`; throws not_found when it does not exist. */
export async function getRepo(ctx: Signet, owner: string, name: string): Promise<RepoRow> {
  const repo = await ctx.store.repos.find(validateUsername(owner), validateRepoName(name));
  if (!repo) throw new DomainError("not_found", `repository ${owner}/${name} not found`);
  return repo;
}

/**
 * Creates a bare repository owned by `owner`; the row and the directory appear together. Of
 * creates of one name at once, on any instance, exactly one succeeds (the others: conflict).
 */
export async function createRepo(
  ctx: Signet,
  owner: UserRow,
  nameInput: unknown,
): Promise<RepoRow> {
  const name = validateRepoName(nameInput);
  let trashed: string | null = null;
  try {
    return await withRepoName(ctx, owner.username, name, async () => {
      if (await ctx.store.repos.find(owner.username, name)) {
        throw new DomainError("conflict", `repository ${owner.username}/${name} already exists`);
      }
      // A directory without a row: left by a crash, or by a delete whose row is gone and that
      // waits for this name. Nothing of it is wanted, unless the data dir was copied to another
      // database and the directory holds history: then it may be that database's repository.
      await refuseOtherDatabasesRepo(ctx, owner.username, name);
      trashed = await moveToTrash(
        ctx,
        repoDir(ctx, owner.username, name),
        `${owner.username}.orphan`,
      );
      return await initRepo(ctx, owner, name);
    });
  } finally {
    await removeTrashed(trashed);
  }
}

/**
 * Refuses to reuse `owner/name` when its directory holds refs but this database has no row for it,
 * and `signet db copy` copied this data dir's embedded database to PostgreSQL: the two databases
 * share the repositories, so a repository pushed while serving one is unknown to the other, and
 * making it anew would throw its history away.
 */
async function refuseOtherDatabasesRepo(ctx: Signet, owner: string, name: string): Promise<void> {
  const dir = repoDir(ctx, owner, name);
  if (!ctx.databaseCopied || !await hasRefs(dir)) return;
  log("warn", "a repository directory with history has no row in this database; kept", {
    repo: `${owner}/${name}`,
    path: dir,
  });
  throw new DomainError(
    "conflict",
    `${owner}/${name} exists on disk with history but not in this database (signet db copy ` +
      "moved this installation between databases, and the other one may own it); an " +
      "administrator must move its directory away before the name can be used again",
  );
}

// Creates the directory and the row; runs holding the repository's name.
async function initRepo(ctx: Signet, owner: UserRow, name: string): Promise<RepoRow> {
  const dir = repoDir(ctx, owner.username, name);
  const init = await new Deno.Command("git", {
    args: ["init", "--quiet", "--bare", "--initial-branch=main", dir],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!init.success) {
    throw new Error(`git init failed: ${new TextDecoder().decode(init.stderr)}`);
  }
  const size = await dirSize(dir);
  try {
    // Read back in the same transaction: a delete arriving the moment the row is committed must
    // not leave this create without the row it reports.
    return await ctx.store.transaction(async (tx) => {
      await tx.repos.insert(owner.id, name, size);
      return (await tx.repos.find(owner.username, name))!;
    });
  } catch (err) {
    // The name is held: the directory is this create's alone.
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw err;
  }
}

/** Deletes `owner/name` after checking `actor` owns it; removes the row and the directory. */
export async function deleteRepo(
  ctx: Signet,
  actor: UserRow,
  owner: string,
  name: string,
): Promise<RepoRow> {
  const repo = await getRepo(ctx, owner, name);
  mustOwn(repo, actor, "delete");
  return await removeRepo(ctx, repo);
}

/**
 * Deletes a repository with no ownership check (admin use). The row goes first (of deletes at
 * once, on any instance, one succeeds; transfers arriving from then on are refused), then, once
 * no transfer of it runs, its directory moves to the trash in one step and is removed.
 */
export async function removeRepo(ctx: Signet, repo: RepoRow): Promise<RepoRow> {
  if (!await ctx.store.repos.delete(repo.id)) {
    throw new DomainError("not_found", `repository ${repo.owner}/${repo.name} not found`);
  }
  const trashed = await withRepoName(ctx, repo.owner, repo.name, async () => {
    // Created again meanwhile: that create moved this directory away already.
    if (await ctx.store.repos.find(repo.owner, repo.name)) return null;
    return await moveToTrash(ctx, repoDir(ctx, repo.owner, repo.name), `${repo.owner}.${repo.id}`);
  });
  await removeTrashed(trashed);
  return repo;
}

/**
 * Validates a repository listing's query parameters: by name (the default), creation or last push;
 * the tie-breaks of created and pushed are ids.
 */
export const parseRepoListParams = listParamsParser<RepoSort>("name", {
  name: { order: "asc", tieBreak: "string" },
  created: { order: "desc", tieBreak: "number" },
  pushed: { order: "desc", tieBreak: "number" },
});

/** One page of the repositories of `owner` (validated; it must exist), or of all when undefined. */
export async function pageReposOf(
  ctx: Signet,
  params: ListParams<RepoSort>,
  owner?: string,
): Promise<Page<RepoRow>> {
  if (owner === undefined) return await ctx.store.repos.page(params);
  const name = validateUsername(owner);
  if (!(await ctx.store.users.findByName(name))) {
    throw new DomainError("not_found", `user ${name} not found`);
  }
  return await ctx.store.repos.page({ ...params, owner: name });
}

/** Total size in bytes of the files under a repository's directory, measured now. */
export async function repoDiskUsage(ctx: Signet, repo: RepoRow): Promise<number> {
  return await dirSize(repoDir(ctx, repo.owner, repo.name));
}

/**
 * The rows with their sizes: a row not measured yet (stored before sizes were) is measured now
 * and its size stored, once.
 */
export async function withSizes(ctx: Signet, rows: RepoRow[]): Promise<RepoRow[]> {
  return await Promise.all(rows.map(async (r) => {
    if (r.size_bytes !== null) return r;
    const size = await repoDiskUsage(ctx, r);
    await ctx.store.repos.setSize(r.id, size);
    return { ...r, size_bytes: size };
  }));
}

/** Lists the repositories of `owner` (validated), or all when undefined. */
export async function listReposOf(ctx: Signet, owner?: string): Promise<RepoRow[]> {
  if (owner === undefined) return await ctx.store.repos.list();
  const name = validateUsername(owner);
  if (!(await ctx.store.users.findByName(name))) {
    throw new DomainError("not_found", `user ${name} not found`);
  }
  return await ctx.store.repos.list(name);
}

/**
 * `recordPush` without waiting for it, for a transport that answers its client first: shutdown
 * still waits for it (a tracked transfer), and a failure (the database away) is logged.
 */
export function recordPushLater(ctx: Signet, repo: RepoRow, succeeded: boolean): void {
  trackTransfer(
    recordPush(ctx, repo, succeeded).catch((err) => {
      log("warn", "could not record a push", {
        repo: `${repo.owner}/${repo.name}`,
        error: String(err),
      });
    }),
  );
}

/**
 * Records a push to `repo` once git has exited: its refs may have changed even when it failed
 * (some refs of a non-atomic push), so cached clones of the old state retire either way, and its
 * size is measured again either way (listings read the stored size, never the disk). The cached
 * clones retire before its first await, so a caller may answer the client without waiting. A HEAD
 * naming no branch is pointed at one (head.ts); after a push that succeeded, once the row is
 * written, git's `gc --auto` runs, holding the repository as a transfer does (auto_gc.ts).
 */
export async function recordPush(ctx: Signet, repo: RepoRow, succeeded: boolean): Promise<void> {
  ctx.cloneCache?.refsChanged(repo.id);
  const dir = repoDir(ctx, repo.owner, repo.name);
  // First: a clone right after the push should find HEAD on a branch.
  await repairHead(ctx, dir).catch(() => null);
  const size = await repoDiskUsage(ctx, repo).catch(() => undefined);
  if (succeeded) await ctx.store.repos.touchPushed(repo.id, size);
  else if (size !== undefined) await ctx.store.repos.setSize(repo.id, size);
  // Last: the push's row is written even when git's gc takes long (a repack it does not detach).
  if (succeeded) await autoGcHeld(ctx, repo, dir);
}

/** `autoGc` on `repo` while holding it; nothing when it is gone (deleted since the push). */
async function autoGcHeld(ctx: Signet, repo: RepoRow, dir: string): Promise<void> {
  const release = await holdRepo(ctx, repo).catch(() => null);
  if (!release) return;
  try {
    await autoGc(ctx, dir);
  } finally {
    release();
  }
}
