/** Marks of a code search's matches: plain text as git matches it, patterns without backtracking. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { matchesOf } from "./search_marks.ts";

const plain = { regex: false, matchCase: false };
const regex = { regex: true, matchCase: false };

Deno.test("plain text: ASCII letters in either case, everything else as itself", () => {
  const m = matchesOf("a.b", plain);
  assertEquals(m("A.B axb a.b"), [[0, 3], [8, 11]]);
  assertEquals(matchesOf("a.b", { regex: false, matchCase: true })("A.B a.b"), [[4, 7]]);
  // Non-ASCII letters match only as written (git's -i under the C locale).
  assertEquals(matchesOf("é", plain)("É é"), [[2, 3]]);
});

Deno.test("patterns: RE2 syntax with POSIX classes, in UTF-16 units, empty matches skipped", () => {
  assertEquals(matchesOf("line 1[[:digit:]]$", regex)("hello line 15"), [[6, 13]]);
  assertEquals(matchesOf("b+", regex)("😀a bB x"), [[4, 6]]);
  assertEquals(matchesOf("B+", { regex: true, matchCase: true })("bB"), [[1, 2]]);
  assertEquals(matchesOf("x*", regex)("abc"), []);
});

Deno.test("a pattern that would backtrack for ever in RegExp finds nothing, quickly", () => {
  // /(a*)*b/ against a few thousand a's does not finish in JavaScript's own engine.
  assertEquals(matchesOf("(a*)*b", regex)("a".repeat(5_000)), []);
});

Deno.test("marks stop once the page's time is spent; plain text has none to spend", () => {
  const line = "e".repeat(200);
  assertEquals(matchesOf("e", regex)(line).length, 200);
  const spent = matchesOf("e", regex, 0);
  assertEquals([spent(line).length, spent(line).length], [0, 0]);
  assertEquals(matchesOf("e", plain, 0)(line).length, 200);
});
