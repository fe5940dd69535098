/**
 * Where a code search's matches are in a line, to mark them (server/domain/browse/grep.ts finds the
 * lines). A plain query is matched as git matches it: its ASCII letters in either case (git's `-i`
 * under the C locale, which reads set) unless the case must match, every other character as
 * itself. A regular expression runs in re2js, a linear-time engine (RE2's syntax, POSIX classes
 * such as `[[:digit:]]` included): a visitor's pattern must not be able to make the server's
 * thread backtrack for ever, which JavaScript's own RegExp would.
 */
import { RE2JS } from "re2js";
import type { GrepOptions } from "../../domain/browse/grep.ts";

/** The matches in `text`: [start, end) in UTF-16 units, in order, none empty. */
export type Matches = (text: string) => [number, number][];

/** Characters of a line looked at for matches (a minified file's line can be megabytes long). */
export const MARK_SCAN_CHARS = 16 * 1024;

/** The matches of `query`, or null when the pattern cannot be read here (git's lines stay). */
export function matchesOf(query: string, options: GrepOptions): Matches | null {
  if (options.regex) {
    let pattern: RE2JS;
    try {
      pattern = RE2JS.compile(query, options.matchCase ? 0 : RE2JS.CASE_INSENSITIVE);
    } catch {
      return null;
    }
    return (text) => {
      const found: [number, number][] = [];
      const m = pattern.matcher(text.slice(0, MARK_SCAN_CHARS));
      while (m.find()) {
        if (m.end() > m.start()) found.push([m.start(), m.end()]);
      }
      return found;
    };
  }
  const source = [...query].map((ch) =>
    /[a-z]/i.test(ch) && !options.matchCase
      ? `[${ch.toLowerCase()}${ch.toUpperCase()}]`
      : ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
  ).join("");
  const literal = new RegExp(source, "gu");
  return (text) =>
    [...text.slice(0, MARK_SCAN_CHARS).matchAll(literal)]
      .filter((m) => m[0] !== "")
      .map((m) => [m.index, m.index + m[0].length]);
}
