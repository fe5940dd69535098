/**
 * The last commit of each entry of a directory, as a forge's file list shows beside each name: one
 * `git log --name-only` of the directory, newest first, read as it comes and stopped once every
 * entry has its commit. An entry not reached within the time given keeps none (a long history
 * whose old files were not touched for years): the rest is still answered.
 */
import type { Signet } from "../../context.ts";
import { gitRead } from "./git_read.ts";
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
/** Output read at most (names of the files each commit changed in the directory). */
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const FORMAT = "%x1e%H%x00%at%x00%an%x00%s";

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
 * Reads `git log --format=FORMAT --name-only -z` output piece by piece: each record is `\x1e`, the
 * id, date, author and subject each ended by NUL, a newline (none for a commit that lists no
 * path), then the changed paths, each ended by NUL. Gives, per path under `prefix`, its first segment below it and the record's commit.
 */
export class LogNames {
  #rest = "";
  #commit: EntryCommit | null = null;
  constructor(private readonly prefix: string) {}

  /** The (entry, commit) pairs completed by `text`, in output order. */
  *feed(text: string): Generator<[string, EntryCommit]> {
    this.#rest += text;
    let at = 0;
    while (at < this.#rest.length) {
      if (this.#rest[at] === "\x1e") {
        HEADER.lastIndex = at;
        const header = HEADER.exec(this.#rest);
        // The newline after a header may not have come yet: wait for it before reading names.
        if (header && at + header[0].length === this.#rest.length && !header[0].endsWith("\n")) {
          break;
        }
        if (!header) {
          // Incomplete: wait for more, unless it cannot be a header at all.
          if (this.#rest.length - at < 4096) break;
          at++;
          continue;
        }
        this.#commit = {
          id: header[1],
          date: Number(header[2]),
          author: header[3],
          subject: header[4],
        };
        at += header[0].length;
        continue;
      }
      const end = this.#rest.indexOf("\0", at);
      if (end < 0) break;
      const path = this.#rest.slice(at, end);
      at = end + 1;
      if (this.#commit && path.startsWith(this.prefix) && path.length > this.prefix.length) {
        yield [path.slice(this.prefix.length).split("/")[0], this.#commit];
      }
    }
    this.#rest = this.#rest.slice(at);
  }
}

// deno-lint-ignore no-control-regex
const HEADER = /\x1e([0-9a-f]{40,64})\0(\d+)\0([^\0]*)\0([^\0]*)\0\n?/y;
