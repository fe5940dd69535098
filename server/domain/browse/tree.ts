/** Listing a directory of a commit's tree with `git ls-tree`. */
import type { Signet } from "../../context.ts";
import { checkObjects, gitRead } from "./git_read.ts";
import type { BrowseRepo } from "./refs.ts";

/** Entries shown of one directory (GitHub shows 1,000 too); the rest are counted. */
export const MAX_TREE_ENTRIES = 1000;

/** One entry of a tree. */
export interface TreeEntry {
  name: string;
  /** `tree` (a directory), `blob` (a file or symlink) or `commit` (a submodule). */
  type: "tree" | "blob" | "commit";
  mode: string;
  oid: string;
  /** Size in bytes of a blob; null otherwise. */
  size: number | null;
}

/** A directory's listing, or what the path is instead. */
export type TreeResult =
  | { kind: "tree"; entries: TreeEntry[]; total: number }
  | { kind: "blob" }
  | { kind: "missing" };

/**
 * Lists the directory `path` of `commit` (directories first, then by name), at most
 * MAX_TREE_ENTRIES of them; `total` counts them all.
 */
export async function listTree(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  client?: string,
): Promise<TreeResult> {
  const out = await gitRead(
    ctx,
    repo.dir,
    ["ls-tree", "-z", "--long", "--end-of-options", `${commit}:${path}`],
    { maxBytes: 32 * 1024 * 1024, client },
  );
  if (out.code !== 0 && !out.truncated) {
    return /not a tree object/i.test(out.stderr) ? { kind: "blob" } : { kind: "missing" };
  }
  const records = new TextDecoder().decode(out.stdout).split("\0");
  if (out.truncated || records.at(-1) !== "") records.pop();
  const all: TreeEntry[] = [];
  for (const rec of records) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, oid, size] = rec.slice(0, tab).split(/ +/);
    if (type !== "tree" && type !== "blob" && type !== "commit") continue;
    all.push({
      name: rec.slice(tab + 1),
      type,
      mode,
      oid,
      size: type === "blob" ? Number(size) : null,
    });
  }
  all.sort((a, b) =>
    (a.type === "tree" ? 0 : 1) - (b.type === "tree" ? 0 : 1) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
  return { kind: "tree", entries: all.slice(0, MAX_TREE_ENTRIES), total: all.length };
}

/** The tree mode of a symbolic link (its blob holds the target path). */
export const SYMLINK_MODE = "120000";

/** The mode of the entry at `path` of `commit` (`100644`, SYMLINK_MODE, …), or null. */
export async function entryMode(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  client?: string,
): Promise<string | null> {
  const out = await gitRead(
    ctx,
    repo.dir,
    ["ls-tree", "-z", "--end-of-options", commit, "--", path],
    { maxBytes: 64 * 1024, client },
  );
  if (out.code !== 0) return null;
  const record = new TextDecoder().decode(out.stdout).split("\0")[0];
  return record.includes("\t") ? record.slice(0, record.indexOf(" ")) : null;
}

/** The README of a directory's entries: README.md first, then other README names; or null. */
export function findReadme(entries: TreeEntry[]): TreeEntry | null {
  const candidates = entries.filter((e) =>
    e.type === "blob" && /^readme(\.(md|markdown|mdown|txt|rst))?$/i.test(e.name)
  );
  const rank = (e: TreeEntry) => /\.(md|markdown|mdown)$/i.test(e.name) ? 0 : 1;
  candidates.sort((a, b) => rank(a) - rank(b));
  return candidates[0] ?? null;
}

/** What a path is in a commit: a directory, a file, a submodule, or nothing. */
export type PathKind = "tree" | "blob" | "commit" | "missing";

/**
 * What each of `paths` (a commit and a path in it, `""` the root) is, with one `git cat-file` run.
 * A path holding a line break cannot be asked that way and counts as missing (paths.ts refuses
 * them in URLs anyway).
 */
export async function pathKinds(
  ctx: Signet,
  repo: BrowseRepo,
  paths: { commit: string; path: string }[],
  client?: string,
): Promise<PathKind[]> {
  const infos = await checkObjects(ctx, repo.dir, paths.map((p) => `${p.commit}:${p.path}`), {
    maxBytes: 64 * 1024,
    client,
  });
  return infos.map((info): PathKind =>
    typeof info === "object" && (info.type === "tree" || info.type === "blob" ||
        info.type === "commit")
      ? info.type
      : "missing"
  );
}
