/**
 * One commit with its diff (against its first parent), or the diff between two commits: `git
 * diff-tree` twice, once for the list of changed files (`--raw -z`, with a commit's header), once
 * for the patch, each bounded; files git considers too big (core.bigFileThreshold, see
 * git_read.ts) or whose patch is over the per-file limit are listed without their diff.
 */
import type { Signet } from "../../context.ts";
import { checkObjects, gitRead } from "./git_read.ts";
import type { BrowseRepo } from "./refs.ts";

/** Most bytes of a commit's whole patch read; files past it are listed without their diff. */
export const MAX_PATCH_BYTES = 4 * 1024 * 1024;
/** Most bytes and lines of one file's patch shown. */
export const MAX_FILE_PATCH_BYTES = 512 * 1024;
export const MAX_FILE_PATCH_LINES = 5000;
/** Most changed files listed. */
export const MAX_CHANGED_FILES = 3000;
/** Largest `.patch` served (format-patch output); a larger one is refused. */
export const MAX_FORMAT_PATCH_BYTES = 16 * 1024 * 1024;

/** A commit's metadata. */
export interface CommitHeader {
  id: string;
  parents: string[];
  author: string;
  authorEmail: string;
  authorDate: number;
  committer: string;
  committerEmail: string;
  committerDate: number;
  message: string;
}

/** One changed file. */
export interface FileChange {
  /** A added, D deleted, M modified, R renamed, C copied, T type changed. */
  status: string;
  path: string;
  /** The path before, for renames and copies. */
  oldPath: string | null;
  oldMode: string;
  newMode: string;
  /** The blob ids before and after (all zeros for none). */
  oldOid: string;
  newOid: string;
  /**
   * Its patch (from `diff --git`), or null when not shown: `tooLarge` says whether it was over the
   * per-file limit, or the whole patch was (`patchCut`).
   */
  patch: string | null;
  binary: boolean;
  tooLarge: boolean;
  /**
   * Lines added and deleted, when `counted`: a binary file's are not, nor those of a file over 1
   * MiB, which git's diff is never given (counting them means reading both versions whole).
   */
  added: number;
  deleted: number;
  counted: boolean;
}

/** A commit and its changes. */
export interface CommitDetail {
  header: CommitHeader;
  files: FileChange[];
  /** More files changed than MAX_CHANGED_FILES. */
  filesCut: boolean;
  /** The whole patch was over MAX_PATCH_BYTES: files past that have no patch. */
  patchCut: boolean;
}

const HEADER = "%H%x00%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B%x00";
/**
 * `diff-tree` (plumbing: no porcelain config applies) with the same options in both calls, so they
 * pair files alike (renames found in both, `-M`). A file over core.bigFileThreshold is not diffed,
 * but git 2.39 still reads it whole once from a pack (about 1 ms per MB here): when the commit has
 * such files, the patch is asked again for the others only (see readCommit).
 */
const SHOW = [
  "diff-tree",
  "-r",
  "--root",
  "-M",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--diff-merges=first-parent",
];

/** Blobs larger than this are never given to git's diff (it would read them whole). */
const BIG_BLOB_BYTES = 1024 * 1024;
/** Most paths named to the second patch call (beyond them the first is waited for). */
const MAX_PATCH_PATHS = 1000;
const ZERO_OID = /^0+$/;

/**
 * Reads commit `id` of `repo` (a full id known to be a commit) with its diff against its first
 * parent; null when git cannot read it.
 */
export async function readCommit(
  ctx: Signet,
  repo: BrowseRepo,
  id: string,
  client?: string,
): Promise<CommitDetail | null> {
  const read = await readChanges(ctx, repo, [id], client);
  if (!read || read.header.length < 9) return null;
  const fields = read.header;
  const header: CommitHeader = {
    id: fields[0],
    parents: fields[1] ? fields[1].split(" ") : [],
    author: fields[2],
    authorEmail: fields[3],
    authorDate: Number(fields[4]),
    committer: fields[5],
    committerEmail: fields[6],
    committerDate: Number(fields[7]),
    message: fields[8].replace(/\n+$/, ""),
  };
  return { header, ...read.changes };
}

/** What changed between two commits: the files, and whether lists or patches were cut short. */
export type Changes = Omit<CommitDetail, "header">;

/**
 * The changes from commit `from` to commit `to` (full ids known to be commits), with the same
 * bounds as a commit's; null when git cannot read them.
 */
export async function readDiff(
  ctx: Signet,
  repo: BrowseRepo,
  from: string,
  to: string,
  client?: string,
): Promise<Changes | null> {
  return (await readChanges(ctx, repo, [from, to], client))?.changes ?? null;
}

/**
 * The diff of `revs` (one commit: against its first parent, with its header; two: the first's
 * tree against the second's). The list of changed files and the patch are asked for at once; when a
 * changed file's blob is over 1 MiB, the patch call is stopped and asked again without those files
 * (they are listed as too large).
 */
async function readChanges(
  ctx: Signet,
  repo: BrowseRepo,
  revs: string[],
  client?: string,
): Promise<{ header: string[]; changes: Changes } | null> {
  const withHeader = revs.length === 1;
  const patchArgs = [...SHOW, "--no-commit-id", "--patch", "--end-of-options", ...revs];
  const stop = new AbortController();
  const firstPatch = gitRead(ctx, repo.dir, patchArgs, {
    maxBytes: MAX_PATCH_BYTES,
    client,
    signal: stop.signal,
  });
  firstPatch.catch(() => {});
  const raw = await gitRead(ctx, repo.dir, [
    ...SHOW,
    "-z",
    "--raw",
    "--no-abbrev",
    // --always: a commit that changes nothing still has its header printed.
    ...(withHeader ? ["--always", `--format=${HEADER}`] : []),
    "--end-of-options",
    ...revs,
  ], { maxBytes: 8 * 1024 * 1024, client });
  const fields = new TextDecoder().decode(raw.stdout).split("\0");
  if ((raw.code !== 0 && !raw.truncated) || (withHeader && fields.length < 10)) {
    stop.abort();
    await firstPatch.catch(() => {});
    return null;
  }
  const headerCount = withHeader ? 9 : 0;
  const { files, cut } = parseRaw(fields.slice(headerCount), raw.truncated);
  const big = await bigBlobs(ctx, repo, files, client);
  let patch = null;
  let shown = files;
  if (big.size > 0) {
    shown = files.filter((f) => !big.has(f.oldOid) && !big.has(f.newOid));
    const paths = shown.flatMap((f) => (f.oldPath === null ? [f.path] : [f.oldPath, f.path]));
    for (const f of files) if (!shown.includes(f)) f.tooLarge = true;
    if (paths.length === 0) {
      stop.abort();
      patch = { stdout: new Uint8Array(), truncated: false };
    } else if (paths.length <= MAX_PATCH_PATHS) {
      stop.abort();
      patch = await gitRead(ctx, repo.dir, [...patchArgs, "--", ...paths], {
        maxBytes: MAX_PATCH_BYTES,
        client,
      });
    } else {
      shown = files;
      for (const f of files) f.tooLarge = false;
    }
  }
  patch ??= await firstPatch;
  await firstPatch.catch(() => {});
  attachPatches(shown, new TextDecoder().decode(patch.stdout), patch.truncated);
  return {
    header: fields.slice(0, headerCount),
    changes: { files, filesCut: cut, patchCut: patch.truncated },
  };
}

/** The blob ids among `files` (old and new sides) whose blobs are over BIG_BLOB_BYTES. */
async function bigBlobs(
  ctx: Signet,
  repo: BrowseRepo,
  files: FileChange[],
  client?: string,
): Promise<Set<string>> {
  const oids = new Set<string>();
  for (const f of files) {
    for (const oid of [f.oldOid, f.newOid]) if (oid && !ZERO_OID.test(oid)) oids.add(oid);
  }
  if (oids.size === 0) return new Set();
  const infos = await checkObjects(ctx, repo.dir, [...oids], {
    maxBytes: 4 * 1024 * 1024,
    client,
  });
  const big = new Set<string>();
  for (const info of infos) {
    if (typeof info === "object" && info.type === "blob" && info.size > BIG_BLOB_BYTES) {
      big.add(info.id);
    }
  }
  return big;
}

/** The `--raw -z` records after the header: `:modes oids status`, then one or two paths. */
function parseRaw(tokens: string[], truncated: boolean): { files: FileChange[]; cut: boolean } {
  const files: FileChange[] = [];
  let cut = truncated;
  for (let i = 0; i < tokens.length; i++) {
    const meta = tokens[i].replace(/^[\n\0]+/, "");
    if (!meta.startsWith(":")) continue;
    const [oldMode, newMode, oldOid, newOid, status] = meta.slice(1).split(" ");
    const two = /^[RC]/.test(status ?? "");
    const first = tokens[i + 1];
    const second = two ? tokens[i + 2] : undefined;
    if (first === undefined || (two && second === undefined)) break;
    i += two ? 2 : 1;
    if (files.length >= MAX_CHANGED_FILES) {
      cut = true;
      break;
    }
    files.push({
      status: status[0],
      path: two ? second! : first,
      oldPath: two ? first : null,
      oldMode,
      newMode,
      oldOid: oldOid ?? "",
      newOid: newOid ?? "",
      patch: null,
      binary: false,
      tooLarge: false,
      added: 0,
      deleted: 0,
      counted: false,
    });
  }
  return { files, cut };
}

/**
 * Splits the patch at its `diff --git` lines and gives each file its part, in order (git writes
 * the raw records and the patches in the same order); a part over the per-file limits is dropped.
 */
function attachPatches(files: FileChange[], patch: string, truncated: boolean): void {
  const parts = patch.split(/^(?=diff --git )/m).filter((p) => p.startsWith("diff --git "));
  // The last part of a cut patch is incomplete: it is not shown.
  if (truncated) parts.pop();
  for (let i = 0; i < files.length && i < parts.length; i++) {
    const part = parts[i];
    const f = files[i];
    f.binary = /^Binary files .* differ$/m.test(part) || /^GIT binary patch$/m.test(part);
    let added = 0;
    let deleted = 0;
    let lines = 0;
    let inHunk = false;
    for (const line of part.split("\n")) {
      lines++;
      if (line.startsWith("@@")) inHunk = true;
      else if (inHunk && line.startsWith("+")) added++;
      else if (inHunk && line.startsWith("-")) deleted++;
    }
    f.added = added;
    f.deleted = deleted;
    f.counted = !f.binary;
    if (part.length > MAX_FILE_PATCH_BYTES || lines > MAX_FILE_PATCH_LINES) f.tooLarge = true;
    else f.patch = part;
  }
  // Big files git did not diff count as too large to show.
  for (const f of files) if (f.binary && f.patch !== null) f.tooLarge = false;
}

/**
 * `git format-patch` of commit `id` (binary files and files over 1 MiB as "Binary files differ",
 * as GitHub's `.patch` has them), or null when it is over MAX_FORMAT_PATCH_BYTES.
 */
export async function formatPatch(
  ctx: Signet,
  repo: BrowseRepo,
  id: string,
  client?: string,
): Promise<Uint8Array | null> {
  const out = await gitRead(
    ctx,
    repo.dir,
    ["format-patch", "--stdout", "-1", "--no-binary", "--no-color", "--end-of-options", id],
    { maxBytes: MAX_FORMAT_PATCH_BYTES, client, timeoutMs: 30_000 },
  );
  return out.truncated ? null : out.stdout;
}
