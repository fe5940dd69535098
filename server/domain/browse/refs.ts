/**
 * A repository as the browser reads it: its row, directory, the state of its refs (the key of every
 * cached page) and its branches and tags with their commits and dates, read with `for-each-ref`
 * once per ref state.
 */
import type { RepoRow } from "../../../db/repos.ts";
import type { Signet } from "../../context.ts";
import { DomainError } from "../../../protocol/errors.ts";
import { getRepo, repoDir } from "../repos.ts";
import { refState } from "../ref_state.ts";
import { defaultBranchOf, readHead } from "../head.ts";
import { checkObjects, gitRead } from "./git_read.ts";
import {
  isAbbreviatedId,
  isObjectId,
  type RefAndPath,
  refAtStart,
  splitRefAndPath,
} from "./paths.ts";

/** One branch or tag. */
export interface RefInfo {
  /** Short name: `main`, `feature/x`, `v1.0`. */
  name: string;
  kind: "branch" | "tag";
  /** The commit it names (an annotated tag peeled), or null when it names no commit. */
  commit: string | null;
  /** That commit's committer date, Unix seconds (a tag's own date when it names no commit). */
  date: number | null;
  /** The ref's subject line: its commit's, or an annotated tag's own. */
  subject: string;
  /** The commit's own subject, author and author date (Unix seconds); empty without a commit. */
  commitSubject: string;
  author: string;
  authorDate: number | null;
}

/** The refs of a repository at one state. */
export interface RefList {
  branches: RefInfo[];
  tags: RefInfo[];
  /** The default branch (HEAD's, when it exists), else null (an empty repository). */
  defaultBranch: string | null;
  /** Branches and tags by short name (a branch wins over a tag of the same name). */
  byName: Map<string, RefInfo>;
}

/** A repository opened for reading. */
export interface BrowseRepo {
  row: RepoRow;
  dir: string;
  /** Digest of its refs (ref_state.ts): what cached pages are keyed on. */
  state: string;
  refs: RefList;
}

/** Most refs listed (beyond them a repository's lists are cut short). */
export const MAX_REFS = 20_000;

const refCache = new Map<string, { state: string; refs: RefList }>();
const REF_CACHE_ENTRIES = 256;

/** Opens `owner/name`: not_found when there is no such repository (names are validated). */
export async function openRepo(
  ctx: Signet,
  owner: string,
  name: string,
  client?: string,
): Promise<BrowseRepo> {
  const row = await getRepo(ctx, owner, name);
  const dir = repoDir(ctx, row.owner, row.name);
  const state = await refState(dir);
  const key = `${row.id}\0${dir}`;
  const cached = refCache.get(key);
  if (cached && cached.state === state) return { row, dir, state, refs: cached.refs };
  const refs = await listRefs(ctx, dir, client);
  refCache.delete(key);
  refCache.set(key, { state, refs });
  if (refCache.size > REF_CACHE_ENTRIES) refCache.delete(refCache.keys().next().value!);
  return { row, dir, state, refs };
}

/**
 * `for-each-ref` fields naming what a ref points at: its name, its object's type and id, and for an
 * annotated tag the type and id of what it tags (see targetCommit).
 */
export const REF_TARGET_FIELDS = [
  "%(refname)",
  "%(objecttype)",
  "%(objectname)",
  "%(*objecttype)",
  "%(*objectname)",
];

/** The commit a ref names, from REF_TARGET_FIELDS' values (an annotated tag peeled), or null. */
export function targetCommit(
  type: string,
  oid: string,
  peeledType: string,
  peeled: string,
): string | null {
  return type === "commit" ? oid : peeledType === "commit" ? peeled : null;
}

const FORMAT = [
  ...REF_TARGET_FIELDS,
  "%(committerdate:unix)",
  "%(*committerdate:unix)",
  "%(creatordate:unix)",
  "%(authorname)",
  "%(*authorname)",
  "%(authordate:unix)",
  "%(*authordate:unix)",
  "%(*subject)",
  // Last: a subject holds no NUL or newline, but is joined back if it ever did.
  "%(subject)",
].join("%00");

/** Reads the branches and tags of the repository at `dir`, newest commit first. */
export async function listRefs(ctx: Signet, dir: string, client?: string): Promise<RefList> {
  const out = await gitRead(ctx, dir, [
    "for-each-ref",
    `--count=${MAX_REFS}`,
    "--sort=-creatordate",
    `--format=${FORMAT}`,
    "refs/heads/",
    "refs/tags/",
  ], { maxBytes: 16 * 1024 * 1024, client });
  const branches: RefInfo[] = [];
  const tags: RefInfo[] = [];
  const text = new TextDecoder().decode(out.stdout);
  const lines = text.split("\n");
  if (out.truncated) lines.pop();
  for (const line of lines) {
    const f = line.split("\0");
    if (f.length < 14) continue;
    const [ref, type, oid, ptype, poid, cdate, pdate, created, an, pan, ad, pad, psubject] = f;
    const subject = f.slice(13).join(" ");
    const direct = type === "commit";
    const commit = targetCommit(type, oid, ptype, poid);
    // A branch's date is its commit's; a tag's is its own (an annotated tag's tagger date, a
    // lightweight tag's commit's), the order for-each-ref lists them in, as the feed has it.
    // (An old annotated tag without a tagger line has no date of its own: its commit's.)
    const date = Number(direct ? cdate : created || pdate) || null;
    const info = {
      commit,
      date,
      subject,
      commitSubject: commit ? (direct ? subject : psubject) : "",
      author: commit ? (direct ? an : pan) : "",
      authorDate: commit ? Number(direct ? ad : pad) || null : null,
    };
    if (ref.startsWith("refs/heads/")) {
      branches.push({ name: ref.slice(11), kind: "branch", ...info });
    } else if (ref.startsWith("refs/tags/")) {
      tags.push({ name: ref.slice(10), kind: "tag", ...info });
    }
  }
  const byName = new Map<string, RefInfo>();
  for (const t of tags) byName.set(t.name, t);
  for (const b of branches) byName.set(b.name, b);
  const head = await readHead(dir);
  // head.ts's rule for a HEAD naming no branch, which a push's repair has not reached yet.
  const defaultBranch = head && byName.get(head)?.kind === "branch"
    ? head
    : defaultBranchOf(branches.map((b) => b.name));
  return { branches, tags, defaultBranch, byName };
}

/** A URL's ref resolved to a commit, with the path after it. */
export interface Resolved extends RefAndPath {
  commit: string;
}

/**
 * Resolves `segments` (`<ref>/<path>` of a URL) in `repo` (paths.ts's rules): null when no ref or
 * commit matches, the path is unsafe, or the ref names no commit.
 */
export async function resolveRef(
  ctx: Signet,
  repo: BrowseRepo,
  segments: string[],
  client?: string,
): Promise<Resolved | null> {
  const found = splitRefAndPath(segments, refKinds(repo));
  if (!found) return null;
  if (found.kind !== "commit") {
    const commit = repo.refs.byName.get(found.ref)?.commit;
    return commit ? { ...found, commit } : null;
  }
  return await isCommit(ctx, repo, found.ref, client) ? { ...found, commit: found.ref } : null;
}

/**
 * Whether `segments` (`<ref>/<path>` of a URL) start with a ref of `repo` or a full commit id, so
 * that a failed resolveRef means the path (or the commit), not the ref, is missing.
 */
export function startsWithRefOf(repo: BrowseRepo, segments: string[]): boolean {
  return refAtStart(segments, refKinds(repo)) !== null;
}

// Whether a short name is a branch or a tag of `repo` (a branch wins), as URLs' refs are read.
function refKinds(repo: BrowseRepo): (name: string) => "branch" | "tag" | null {
  return (name) => repo.refs.byName.get(name)?.kind ?? null;
}

/** Whether `id` (a full object id) is a commit of `repo`. */
export async function isCommit(
  ctx: Signet,
  repo: BrowseRepo,
  id: string,
  client?: string,
): Promise<boolean> {
  if (!isObjectId(id)) return false;
  const [info] = await checkObjects(ctx, repo.dir, [id], { maxBytes: 4096, client });
  return typeof info === "object" && info.id === id && info.type === "commit";
}

/**
 * The full id of the commit that the abbreviated id `abbreviation` names in `repo`; "ambiguous"
 * when several objects begin with it and git cannot single out one commit (git's own rule,
 * preferring commits); null when none does, or it names something else (a ref of any namespace
 * named like it comes first, as in git: then null unless that ref's commit begins with it).
 */
export async function expandCommitId(
  ctx: Signet,
  repo: BrowseRepo,
  abbreviation: string,
  client?: string,
): Promise<string | "ambiguous" | null> {
  if (!isAbbreviatedId(abbreviation)) return null;
  const [info] = await checkObjects(ctx, repo.dir, [abbreviation], {
    maxBytes: 4096,
    client,
    preferCommits: true,
  });
  if (info === "ambiguous") return "ambiguous";
  // A ref named like the abbreviation resolves to whatever it names: only an id beginning with it.
  return typeof info === "object" && info.type === "commit" && isObjectId(info.id) &&
      info.id.startsWith(abbreviation)
    ? info.id
    : null;
}

/** Throws not_found unless `value` is set (a missing ref, path or commit). */
export function found<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) {
    throw new DomainError("not_found", `${what} not found`);
  }
  return value;
}
