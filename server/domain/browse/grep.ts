/**
 * Code search in one commit's files with `git grep`: the query is a plain string (`-F`) or, when
 * asked, a POSIX extended regular expression (`-E`), its ASCII letters matched in either case
 * (`-i` under the C locale every read runs in) unless the case must match, in text files only
 * (`-I`); one thread, a few lines a file, a bounded output, within the readers' slots and timeout
 * like every other read (what was found by the timeout is returned, marked `timedOut`: the
 * timeout also bounds a pattern that is slow to match).
 */
import type { Signet } from "../../context.ts";
import { DomainError } from "../../../protocol/errors.ts";
import { gitRead } from "./git_read.ts";
import { RE2JS } from "re2js";
import type { BrowseRepo } from "./refs.ts";

/** Longest query, in characters. */
export const MAX_QUERY_LENGTH = 256;
/** Matching lines shown per file (one more is asked for, to say there are more). */
export const LINES_PER_FILE = 10;
/** Files shown at most. */
export const MAX_FILES = 100;
/** Output read from git at most (beyond it the results are cut short). */
const MAX_OUTPUT_BYTES = 2 * 1024 * 1024;

/** How a query is matched. */
export interface GrepOptions {
  /** A POSIX extended regular expression (`git grep -E`), not a plain string. */
  regex: boolean;
  /** Letters match only in the case written (no `-i`). */
  matchCase: boolean;
}

/** A plain string, ASCII letters in either case: what a search is unless asked otherwise. */
export const PLAIN_SEARCH: GrepOptions = { regex: false, matchCase: false };

/** One matching line. */
export interface GrepLine {
  /** From 1. */
  number: number;
  /** Where its first match starts: a byte offset from 1 (git's `--column`). */
  column: number;
  text: string;
}

/** The matches in one file. */
export interface GrepFile {
  path: string;
  lines: GrepLine[];
  /** More lines of this file match than `lines` holds. */
  more: boolean;
}

/** What a search found. */
export interface GrepResult {
  files: GrepFile[];
  /** Files or lines were left out (MAX_FILES, the output bound, or the timeout). */
  cut: boolean;
  /** The read's time ran out: `files` is what git had found by then. */
  timedOut?: boolean;
}

/**
 * Checks a search query: 1 to MAX_QUERY_LENGTH characters, not only blanks, no control characters
 * (git's fixed-string patterns are line-based). Throws `invalid` saying what is wrong.
 */
export function checkQuery(query: string): string {
  if (query.trim() === "") throw new DomainError("invalid", "the search is empty");
  if ([...query].length > MAX_QUERY_LENGTH) {
    throw new DomainError("invalid", `a search is at most ${MAX_QUERY_LENGTH} characters`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(query)) {
    throw new DomainError("invalid", "a search cannot hold control characters or line breaks");
  }
  return query;
}

/** Largest regular expression accepted, in instructions of its RE2 program. */
export const MAX_PATTERN_SIZE = 400;
/** Escapes of a letter or digit both git's POSIX expressions and RE2 read alike. */
const SHARED_ESCAPES = new Set(["w", "W", "s", "S", "b", "B"]);

/**
 * Checks a regular expression before git runs it, and returns it compiled by RE2 (re2js), which
 * marks its matches: it must be one RE2 reads, so no back-reference (glibc backtracks on those) and
 * no repetition count over 1,000 (glibc copies the pattern for each); at most MAX_PATTERN_SIZE
 * instructions (marking stays cheap); and no escape of a letter or digit that means one thing to
 * git and another to RE2 (git reads `\d` as `d`). Throws `invalid` saying what is wrong.
 */
export function checkRegex(query: string, matchCase: boolean): RE2JS {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(query, matchCase ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/^error parsing regexp: /, "") : "";
    throw new DomainError("invalid", `not a regular expression this search reads (${reason})`);
  }
  for (let i = 0; i < query.length; i++) {
    if (query[i] !== "\\") continue;
    const next = query[++i] ?? "";
    if (/[A-Za-z0-9]/.test(next) && !SHARED_ESCAPES.has(next)) {
      throw new DomainError(
        "invalid",
        `\\${next} is not part of POSIX regular expressions (git reads it as "${next}"): ` +
          "use a bracket expression such as [0-9] or [[:space:]]",
      );
    }
  }
  if (compiled.programSize() > MAX_PATTERN_SIZE) {
    throw new DomainError("invalid", "the regular expression is too large: use fewer repetitions");
  }
  return compiled;
}

/**
 * Searches the text files of `commit` (a full id) for `query` (checked by checkQuery, and by
 * checkRegex when it is a regular expression); one git cannot read is refused as `invalid`, in
 * git's words.
 */
export async function grep(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  query: string,
  options: GrepOptions = PLAIN_SEARCH,
  client?: string,
): Promise<GrepResult> {
  checkQuery(query);
  if (options.regex) checkRegex(query, options.matchCase);
  const out = await gitRead(ctx, repo.dir, [
    "grep",
    // One thread, as every other read is one process: a search shares the cores with the rest.
    "--threads=1",
    "-I",
    ...(options.matchCase ? [] : ["-i"]),
    options.regex ? "-E" : "-F",
    "-n",
    "--column",
    "-z",
    "--full-name",
    "--no-color",
    `--max-count=${LINES_PER_FILE + 1}`,
    "-e",
    query,
    commit,
    "--",
  ], { maxBytes: MAX_OUTPUT_BYTES, client, partialOnTimeout: true });
  const timedOut = out.timedOut === true;
  if (options.regex && out.code === 128 && !timedOut) {
    throw new DomainError("invalid", `not a regular expression git can read (${badPattern(out)})`);
  }
  // 0: found, 1: nothing found; anything else is git failing (unless it was stopped).
  if (out.code !== 0 && out.code !== 1 && !out.truncated && !timedOut) {
    throw new DomainError("unavailable", "searching the repository failed");
  }
  const result = parseGrep(out.stdout, commit);
  return { ...result, cut: result.cut || out.truncated || timedOut, timedOut };
}

// git's reason for refusing a pattern: "fatal: -e option, '<pattern>': Unmatched ( or \(".
function badPattern(out: { stderr: string }): string {
  const line = out.stderr.split("\n").find((l) => l.startsWith("fatal: ")) ?? "";
  const reason = line.slice(line.lastIndexOf("': ") + 3).trim();
  return line.includes("': ") && reason ? reason : "git refused it";
}

/**
 * Parses `git grep -n --column -z` output for a tree: `<commit>:<path>\0<line>\0<column>\0<text>\n`
 * per match (a path may hold a newline; a text cannot). A record cut short at the end is dropped.
 */
export function parseGrep(stdout: Uint8Array, commit: string): GrepResult {
  const text = new TextDecoder().decode(stdout);
  const prefix = `${commit}:`;
  const files: GrepFile[] = [];
  let cut = false;
  let at = 0;
  while (at < text.length) {
    if (!text.startsWith(prefix, at)) break;
    const pathEnd = text.indexOf("\0", at + prefix.length);
    const numberEnd = pathEnd < 0 ? -1 : text.indexOf("\0", pathEnd + 1);
    const columnEnd = numberEnd < 0 ? -1 : text.indexOf("\0", numberEnd + 1);
    const lineEnd = columnEnd < 0 ? -1 : text.indexOf("\n", columnEnd + 1);
    if (lineEnd < 0) break;
    const path = text.slice(at + prefix.length, pathEnd);
    const line = {
      number: Number(text.slice(pathEnd + 1, numberEnd)),
      column: Number(text.slice(numberEnd + 1, columnEnd)),
      text: text.slice(columnEnd + 1, lineEnd).replace(/\r$/, ""),
    };
    at = lineEnd + 1;
    const last = files.at(-1);
    if (last?.path === path) {
      if (last.lines.length < LINES_PER_FILE) last.lines.push(line);
      else last.more = true;
    } else if (files.length < MAX_FILES) {
      files.push({ path, lines: [line], more: false });
    } else {
      cut = true;
      break;
    }
  }
  return { files, cut };
}
