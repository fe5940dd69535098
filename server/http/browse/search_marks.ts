/**
 * Where a code search's matches are in the part of a line a results page shows, to mark them
 * (server/domain/browse/grep.ts finds the lines, and git's `--column` where each line's first
 * match starts, so only the shown part is ever searched here). A plain query is matched as git
 * matches it: its ASCII letters in either case (git's `-i` under the C locale, which reads set)
 * unless the case must match, every other character as itself. A regular expression runs in
 * re2js, a non-backtracking engine (as checkRegex compiled it), within a time per page: a
 * visitor's pattern must not be able to hold the server's thread, as JavaScript's own RegExp
 * could (`(a*)*b`).
 */
import type { RE2JS } from "re2js";
import { checkRegex, type GrepOptions } from "../../domain/browse/grep.ts";

/** The matches in `text`: [start, end) in UTF-16 units, in order, none empty. */
export type Matches = (text: string) => [number, number][];

/**
 * Time a page's regular-expression marks may take on the thread (ms): past it, the lines left go
 * unmarked. One find looks at a shown part of at most ~240 characters with a program of at most
 * grep.ts's MAX_PATTERN_SIZE instructions, a few milliseconds at worst, so the deadline holds to
 * within that. Measured: the largest page (1,000 lines of 240 characters, two or three matches
 * each) marked in 120–140 ms; `.*ZZZ|e`, whose every find scans to the line's end, took 569 ms for
 * 187 lines of 48 matches, and stops at the deadline now.
 */
export const MARK_BUDGET_MS = 200;

/**
 * The matches of `query`, found the way `options` says (a regular expression checkRegex accepts:
 * the search ran with it); a regular expression's finds stop `budgetMs` after the first one.
 */
export function matchesOf(
  query: string,
  options: GrepOptions,
  budgetMs = MARK_BUDGET_MS,
): Matches {
  if (options.regex) return budgeted(checkRegex(query, options.matchCase), budgetMs);
  const source = [...query].map((ch) =>
    /[a-z]/i.test(ch) && !options.matchCase
      ? `[${ch.toLowerCase()}${ch.toUpperCase()}]`
      : ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
  ).join("");
  const literal = new RegExp(source, "gu");
  return (text) =>
    [...text.matchAll(literal)]
      .filter((m) => m[0] !== "")
      .map((m) => [m.index, m.index + m[0].length]);
}

// Every match of `pattern` until `budgetMs` after the first call (shared by every call of the
// returned function).
function budgeted(pattern: RE2JS, budgetMs: number): Matches {
  let deadline: number | null = null;
  return (text) => {
    deadline ??= performance.now() + budgetMs;
    const found: [number, number][] = [];
    const m = pattern.matcher(text);
    while (performance.now() < deadline && m.find()) {
      if (m.end() > m.start()) found.push([m.start(), m.end()]);
    }
    return found;
  };
}
