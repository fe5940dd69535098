/** Who last changed each line of a file: `git blame --porcelain`, bounded like every read. */
import type { Signet } from "../../context.ts";
import { gitRead } from "./git_read.ts";
import type { BrowseRepo } from "./refs.ts";

/** The commit a run of lines comes from. */
export interface BlameCommit {
  id: string;
  author: string;
  /** Author date, Unix seconds. */
  date: number;
  summary: string;
}

/** A file's lines, each with the commit that last changed it. */
export interface Blame {
  /** The file's lines, without their line ends. */
  lines: string[];
  /** For each line, the id of its commit (a key of `commits`). */
  commitOf: string[];
  commits: Map<string, BlameCommit>;
}

/** Most bytes of porcelain read (a 1 MiB file of short lines makes about 4 MiB). */
const MAX_BLAME_BYTES = 16 * 1024 * 1024;

/**
 * The blame of `path` at `commit`, or null when git could not give it whole (no such file, or
 * output past MAX_BLAME_BYTES). Slow histories end in the read's timeout (ReadTimeout).
 */
export async function blame(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  client?: string,
): Promise<Blame | null> {
  const out = await gitRead(ctx, repo.dir, ["blame", "--porcelain", commit, "--", path], {
    maxBytes: MAX_BLAME_BYTES,
    client,
  });
  if (out.truncated || out.code !== 0) return null;
  return parsePorcelain(new TextDecoder().decode(out.stdout));
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
      current = commits.get(id) ?? { id, author: "", date: 0, summary: "" };
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
  }
  return { lines, commitOf, commits };
}
