/**
 * The last commit of each entry of a directory, as a forge's file list shows beside each name: one
 * `git log --name-only` of the directory, newest first, read as it comes and stopped once every
 * entry has its commit. An entry not reached within the time given keeps none (a long history
 * whose old files were not touched for years): the rest is still answered. Walks have reader slots
 * of their own.
 */
import type { Signet } from "../../context.ts";
import { gitRead } from "./git_read.ts";
import { GitSlots } from "../git.ts";
import type { BrowseRepo } from "./refs.ts";

/** The commit that last changed an entry. */
export interface EntryCommit {
  id: string;
  /** Author date, Unix seconds. */
  date: number;
  author: string;
  subject: string;
}

/** What was found: a commit per entry name reached, and whether every entry was. */
export interface EntryCommits {
  commits: Map<string, EntryCommit>;
  complete: boolean;
}

/** Time the walk may take before what it found is answered (ms). */
export const ENTRY_COMMITS_TIMEOUT_MS = 5_000;
/**
 * Walks run in slots of their own, one per client address (as blames do): a walk can take seconds,
 * and the pages' readers stay free for the pages meanwhile.
 */
const walkSlots = new GitSlots(Math.max(1, Math.floor(navigator.hardwareConcurrency / 2)), 1);
/** Output read at most (names of the files each commit changed in the directory). */
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const FORMAT = "%x00%H%x00%at%x00%an%x00%s";

/**
 * The last commit of `commit`'s history to change each of `names` (entries of the directory
 * `dir`, its path's segments; none for the root).
 */
export async function entryCommits(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  dir: string[],
  names: string[],
  client?: string,
): Promise<EntryCommits> {
  const wanted = new Set(names);
  const parser = new LogNames(dir.length === 0 ? "" : `${dir.join("/")}/`);
  const commits = new Map<string, EntryCommit>();
  const stop = new AbortController();
  const decoder = new TextDecoder();
  const take = (text: string) => {
    for (const [entry, found] of parser.feed(text)) {
      if (wanted.has(entry) && !commits.has(entry)) commits.set(entry, found);
    }
    if (commits.size === wanted.size) stop.abort();
  };
  if (wanted.size > 0) {
    const args = [
      "log",
      `--format=${FORMAT}`,
      "--name-only",
      "-z",
      "--no-renames",
      "--end-of-options",
      commit,
    ];
    if (dir.length > 0) args.push("--", dir.join("/"));
    const out = await gitRead(ctx, repo.dir, args, {
      maxBytes: MAX_OUTPUT_BYTES,
      timeoutMs: ENTRY_COMMITS_TIMEOUT_MS,
      partialOnTimeout: true,
      signal: stop.signal,
      slots: walkSlots,
      client,
      onOutput: (chunk) => {
        if (!stop.signal.aborted) take(decoder.decode(chunk, { stream: true }));
      },
    });
    if (!stop.signal.aborted && !out.truncated && !out.timedOut) take(decoder.decode());
  }
  return { commits, complete: commits.size === wanted.size };
}

/**
 * Reads `git log --format=FORMAT --name-only -z` output piece by piece. Split at NUL, the output is
 * a run of records, each an empty token (FORMAT's leading NUL: no path is empty, so nothing else
 * can be one), the id, date, author and subject, then the paths the commit changed, the first of
 * them after a newline. Gives, per path under `prefix`, its first segment below it and the
 * record's commit.
 */
export class LogNames {
  #partial = "";
  #header: string[] | null = null;
  #commit: EntryCommit | null = null;
  #firstPath = false;
  constructor(private readonly prefix: string) {}

  /** The (entry, commit) pairs completed by `text`, in output order. */
  *feed(text: string): Generator<[string, EntryCommit]> {
    const tokens = (this.#partial + text).split("\0");
    this.#partial = tokens.pop()!;
    for (const token of tokens) {
      if (this.#header) {
        this.#header.push(token);
        if (this.#header.length === 4) {
          const [id, date, author, subject] = this.#header;
          this.#commit = { id, date: Number(date), author, subject };
          this.#header = null;
          this.#firstPath = true;
        }
        continue;
      }
      if (token === "") {
        this.#header = [];
        this.#commit = null;
        continue;
      }
      const path = this.#firstPath && token.startsWith("\n") ? token.slice(1) : token;
      this.#firstPath = false;
      if (this.#commit && path.startsWith(this.prefix) && path.length > this.prefix.length) {
        yield [path.slice(this.prefix.length).split("/")[0], this.#commit];
      }
    }
  }
}
