/** parsePorcelain: lines, their commits and each commit's fields, whatever the lines hold. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { parsePorcelain } from "./blame.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);

Deno.test("parsePorcelain: runs of lines, commit fields given once, lines that look like fields", () => {
  const text = [
    `${A} 1 1 2`,
    "author Ada",
    "author-mail <ada@example.com>",
    "author-time 1700000000",
    "summary First",
    "filename f.txt",
    "\tauthor Mallory",
    `${A} 2 2`,
    "\t",
    `${B} 3 3 1`,
    "author Bob",
    "author-time 1800000000",
    "summary Second: with spaces",
    "previous " + A + " f.txt",
    "filename f.txt",
    `\t${A} 9 9 9`,
    "",
  ].join("\n");
  const blame = parsePorcelain(text);
  assertEquals(blame.lines, ["author Mallory", "", `${A} 9 9 9`]);
  assertEquals(blame.commitOf, [A, A, B]);
  assertEquals(blame.commits.get(A), {
    id: A,
    author: "Ada",
    date: 1700000000,
    summary: "First",
    previous: null,
  });
  assertEquals(blame.commits.get(B), {
    id: B,
    author: "Bob",
    date: 1800000000,
    summary: "Second: with spaces",
    previous: { id: A, path: "f.txt" },
  });
});

Deno.test("parsePorcelain: an empty file has no lines", () => {
  assertEquals(parsePorcelain("").lines, []);
});
