/** A page of a branch's (or a path's) history with `git log`. */
import type { Signet } from "../../context.ts";
import { checkObjects, type GitOutput, gitRead } from "./git_read.ts";
import type { BrowseRepo, RefInfo } from "./refs.ts";
import { isObjectId } from "./paths.ts";

/** Commits per page of history. */
export const COMMITS_PER_PAGE = 50;
/** Deepest page asked for (the walk to it must fit in the read's timeout anyway). */
export const MAX_HISTORY_PAGE = 2000;

/** One commit of a history page. */
export interface CommitSummary {
  id: string;
  parents: string[];
  author: string;
  email: string;
  /** Author date, Unix seconds. */
  date: number;
  subject: string;
}

/** A page of history (or the commits a comparison lists) and whether more follow. */
export interface HistoryPage {
  commits: CommitSummary[];
  more: boolean;
}

const FORMAT = "%x1e%H%x00%P%x00%an%x00%ae%x00%at%x00%s";

/** Page `page` (from 1) of the history of `commit`, limited to `path` when not empty. */
export async function history(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  page: number,
  client?: string,
): Promise<HistoryPage> {
  const args = [
    "log",
    `--format=${FORMAT}`,
    `--skip=${(page - 1) * COMMITS_PER_PAGE}`,
    `--max-count=${COMMITS_PER_PAGE + 1}`,
    "--end-of-options",
    commit,
  ];
  if (path) args.push("--", path);
  const out = await gitRead(ctx, repo.dir, args, { maxBytes: 4 * 1024 * 1024, client });
  return summariesUpTo(out, COMMITS_PER_PAGE);
}

/**
 * The commits of a `git log --format=FORMAT` read asked for `max + 1` of them: at most `max`, and
 * whether more followed (a record cut short by the read's byte bound is dropped).
 */
function summariesUpTo(out: GitOutput, max: number): HistoryPage {
  const records = new TextDecoder().decode(out.stdout).split("\x1e").slice(1);
  if (out.truncated) records.pop();
  const commits = records.map(parseSummary).filter((c): c is CommitSummary => c !== null);
  return { commits: commits.slice(0, max), more: commits.length > max };
}

/**
 * The newest commit of `commit`'s history that touched `path` (the commit itself for the root);
 * `known` answers the root of a branch or tag from the ref list, with no git at all.
 */
export async function lastCommit(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  client?: string,
  known?: RefInfo,
): Promise<CommitSummary | null> {
  if (!path && known && known.commit === commit) {
    return {
      id: commit,
      parents: [],
      author: known.author,
      email: "",
      date: known.authorDate ?? 0,
      subject: known.commitSubject,
    };
  }
  const args = ["log", `--format=${FORMAT}`, "--max-count=1", "--end-of-options", commit];
  if (path) args.push("--", path);
  const out = await gitRead(ctx, repo.dir, args, { maxBytes: 64 * 1024, client });
  const record = new TextDecoder().decode(out.stdout).split("\x1e")[1];
  return record === undefined ? null : parseSummary(record);
}

/** Most commits listed for an abbreviated id that several commits begin with. */
export const MAX_AMBIGUOUS_COMMITS = 20;

/**
 * The commits whose ids begin with `abbreviation` (hex digits, as paths.ts's isAbbreviatedId
 * checks), newest first, at most MAX_AMBIGUOUS_COMMITS: what an ambiguous abbreviation could mean.
 */
export async function commitsBeginningWith(
  ctx: Signet,
  repo: BrowseRepo,
  abbreviation: string,
  client?: string,
): Promise<CommitSummary[]> {
  const listed = await gitRead(ctx, repo.dir, ["rev-parse", `--disambiguate=${abbreviation}`], {
    maxBytes: 256 * 1024,
    client,
  });
  const ids = new TextDecoder().decode(listed.stdout).split("\n").filter(isObjectId);
  if (ids.length === 0) return [];
  const typed = await checkObjects(ctx, repo.dir, ids, { maxBytes: 256 * 1024, client });
  const commits = typed.flatMap((info) =>
    typeof info === "object" && info.type === "commit" ? [info.id] : []
  );
  if (commits.length === 0) return [];
  const out = await gitRead(ctx, repo.dir, [
    "log",
    "--no-walk",
    `--format=${FORMAT}`,
    `--max-count=${MAX_AMBIGUOUS_COMMITS}`,
    "--end-of-options",
    ...commits,
  ], { maxBytes: 1024 * 1024, client });
  return summariesUpTo(out, MAX_AMBIGUOUS_COMMITS).commits;
}

/** Most commits a comparison lists (GitHub's bound too). */
export const MAX_COMPARED_COMMITS = 250;

/**
 * The commits reachable from `head` but not from `base` (full ids), newest first, at most
 * MAX_COMPARED_COMMITS; and their merge base (null when the histories share no commit).
 */
export async function compareCommits(
  ctx: Signet,
  repo: BrowseRepo,
  base: string,
  head: string,
  client?: string,
): Promise<HistoryPage & { mergeBase: string | null }> {
  const [log, mergeBase] = await Promise.all([
    gitRead(ctx, repo.dir, [
      "log",
      `--format=${FORMAT}`,
      `--max-count=${MAX_COMPARED_COMMITS + 1}`,
      "--end-of-options",
      head,
      `^${base}`,
    ], { maxBytes: 4 * 1024 * 1024, client }),
    gitRead(ctx, repo.dir, ["merge-base", "--end-of-options", base, head], {
      maxBytes: 4096,
      client,
    }),
  ]);
  const found = new TextDecoder().decode(mergeBase.stdout).trim();
  return {
    ...summariesUpTo(log, MAX_COMPARED_COMMITS),
    mergeBase: mergeBase.code === 0 && /^[0-9a-f]{40,64}$/.test(found) ? found : null,
  };
}

function parseSummary(record: string): CommitSummary | null {
  const f = record.replace(/\n$/, "").split("\0");
  if (f.length < 6) return null;
  return {
    id: f[0],
    parents: f[1] ? f[1].split(" ") : [],
    author: f[2],
    email: f[3],
    date: Number(f[4]),
    subject: f.slice(5).join(" "),
  };
}
