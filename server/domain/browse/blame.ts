/** Who last changed each line of a file: `git blame --porcelain`, bounded like every read. */
import type { Signet } from "../../context.ts";
import { gitRead, ReadTimeout } from "./git_read.ts";
import { GitSlots } from "../git.ts";
import { SizedCache } from "./sized_cache.ts";
import type { BrowseRepo } from "./refs.ts";

/** The commit a run of lines comes from. */
export interface BlameCommit {
  id: string;
  author: string;
  /** Author date, Unix seconds. */
  date: number;
  summary: string;
  /** The commit before it that had the file, and the file's path there (none for its first). */
  previous: { id: string; path: string } | null;
}

/** A file's lines, each with the commit that last changed it. */
export interface Blame {
  /** The file's lines, without their line ends. */
  lines: string[];
  /** For each line, the id of its commit (a key of `commits`). */
  commitOf: string[];
  commits: Map<string, BlameCommit>;
}

/**
 * Most bytes of porcelain read: a header of at least 45 bytes per line besides the line itself, so
 * a 1 MiB file of short lines can pass it (a file of 500,000 one-character lines makes ~29 MB).
 */
const MAX_BLAME_BYTES = 16 * 1024 * 1024;

/** What a blame came to. */
export type BlameResult =
  | { kind: "blame"; blame: Blame }
  /** Its output passed MAX_BLAME_BYTES. */
  | { kind: "too-large" }
  /** git took longer than the read timeout. */
  | { kind: "too-slow" }
  /** git failed (no such file at that commit). */
  | { kind: "failed" };

/**
 * Blames run in slots of their own, one per client address: a long history takes seconds of git,
 * and the pages' readers stay free for the other pages meanwhile.
 */
const blameSlots = new GitSlots(Math.max(1, Math.floor(navigator.hardwareConcurrency / 2)), 1);

/**
 * Blames already made, by repository directory, commit and path (a commit never changes, so
 * neither does its blame): results up to 16 MiB in all (none over half of it), least recently used
 * dropped first, and the verdicts of blames too large (kept) or too slow (kept VERDICT_MS, the
 * machine may have been busy).
 */
const results = new SizedCache<BlameResult>(16 * 1024 * 1024, 8 * 1024 * 1024);
const VERDICT_MS = 10 * 60_000;
/** What a verdict is counted as in the budget. */
const VERDICT_BYTES = 100;

/**
 * The blame of `path` at `commit` (a full id): from memory when made before, else from git within
 * the blame slots, its output bounded by MAX_BLAME_BYTES and its time by the read timeout.
 */
export async function blame(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  client?: string,
): Promise<BlameResult> {
  const key = `${repo.dir}\0${commit}\0${path}`;
  const known = results.get(key);
  if (known) return known;
  let out;
  try {
    out = await gitRead(ctx, repo.dir, ["blame", "--porcelain", commit, "--", path], {
      maxBytes: MAX_BLAME_BYTES,
      client,
      slots: blameSlots,
    });
  } catch (err) {
    if (!(err instanceof ReadTimeout)) throw err;
    const result = { kind: "too-slow" } as const;
    results.set(key, result, VERDICT_BYTES, Date.now() + VERDICT_MS);
    return result;
  }
  if (out.truncated) {
    const result = { kind: "too-large" } as const;
    results.set(key, result, VERDICT_BYTES);
    return result;
  }
  if (out.code !== 0) return { kind: "failed" };
  const result = {
    kind: "blame",
    blame: parsePorcelain(new TextDecoder().decode(out.stdout)),
  } as const;
  // About the porcelain's size: the lines, the ids they point to, the commits' fields.
  results.set(key, result, out.stdout.length);
  return result;
}

/**
 * Parses `git blame --porcelain`: per line a header `<id> <orig> <final> [<count>]`, the commit's
 * fields the first time it appears (`author`, `author-time`, `summary`, …), then the line itself
 * after a tab.
 */
export function parsePorcelain(text: string): Blame {
  const lines: string[] = [];
  const commitOf: string[] = [];
  const commits = new Map<string, BlameCommit>();
  let current: BlameCommit | null = null;
  for (const row of text.split("\n")) {
    if (row.startsWith("\t")) {
      if (!current) continue;
      lines.push(row.slice(1));
      commitOf.push(current.id);
      continue;
    }
    const header = /^([0-9a-f]{40,64}) \d+ \d+/.exec(row);
    if (header) {
      const id = header[1];
      current = commits.get(id) ?? { id, author: "", date: 0, summary: "", previous: null };
      commits.set(id, current);
      continue;
    }
    if (!current) continue;
    const space = row.indexOf(" ");
    const key = space < 0 ? row : row.slice(0, space);
    const value = space < 0 ? "" : row.slice(space + 1);
    if (key === "author") current.author = value;
    else if (key === "author-time") current.date = Number(value) || 0;
    else if (key === "summary") current.summary = value;
    else if (key === "previous") {
      const at = value.indexOf(" ");
      if (at > 0) current.previous = { id: value.slice(0, at), path: value.slice(at + 1) };
    }
  }
  return { lines, commitOf, commits };
}
