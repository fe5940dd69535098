import { assertEquals, assertThrows } from "../../../tests/helpers/assert.ts";
import {
  checkQuery,
  checkRegex,
  LINES_PER_FILE,
  MAX_FILES,
  MAX_QUERY_LENGTH,
  parseGrep,
} from "./grep.ts";

const id = "0123456789abcdef0123456789abcdef01234567";
const enc = (s: string) => new TextEncoder().encode(s);
const rec = (path: string, n: number, text: string, column = 1) =>
  `${id}:${path}\0${n}\0${column}\0${text}\n`;

Deno.test("grep output: matches grouped by file, a path with a newline kept whole", () => {
  const out = rec("a.txt", 1, "hello") + rec("a.txt", 9, "hello again") +
    rec("odd\nname.md", 3, "x\0y? no: hello", 10);
  assertEquals(parseGrep(enc(out), id), {
    files: [
      {
        path: "a.txt",
        lines: [
          { number: 1, column: 1, text: "hello" },
          { number: 9, column: 1, text: "hello again" },
        ],
        more: false,
      },
      {
        path: "odd\nname.md",
        lines: [{ number: 3, column: 10, text: "x\0y? no: hello" }],
        more: false,
      },
    ],
    cut: false,
  });
});

Deno.test("grep output: lines past the per-file bound say more; files past the bound cut", () => {
  let out = "";
  for (let i = 1; i <= LINES_PER_FILE + 1; i++) out += rec("many.txt", i, "m");
  const many = parseGrep(enc(out), id).files[0];
  assertEquals(many.lines.length, LINES_PER_FILE);
  assertEquals(many.more, true);
  out = "";
  for (let i = 0; i <= MAX_FILES; i++) out += rec(`f${i}`, 1, "m");
  const r = parseGrep(enc(out), id);
  assertEquals(r.files.length, MAX_FILES);
  assertEquals(r.cut, true);
});

Deno.test("grep output: a CRLF file's lines lose their CR", () => {
  const out = rec("dos.txt", 1, "hello\r") + rec("dos.txt", 2, "mid\rline");
  assertEquals(parseGrep(enc(out), id).files[0].lines.map((l) => l.text), ["hello", "mid\rline"]);
});

Deno.test("grep output: a record cut short by the output bound is dropped", () => {
  const out = rec("a.txt", 1, "hello") + `${id}:b.txt\0${2}\0${1}\0hel`;
  assertEquals(parseGrep(enc(out), id).files.map((f) => f.path), ["a.txt"]);
});

Deno.test("search queries: 1 to 256 characters of one line", () => {
  assertEquals(checkQuery("foo(bar) -n --output=x"), "foo(bar) -n --output=x");
  assertEquals(checkQuery("é".repeat(MAX_QUERY_LENGTH)).length, MAX_QUERY_LENGTH);
  assertThrows(() => checkQuery(""), Error, "empty");
  assertThrows(() => checkQuery("   "), Error, "empty");
  assertThrows(() => checkQuery("x".repeat(MAX_QUERY_LENGTH + 1)), Error, "at most");
  assertThrows(() => checkQuery("a\nb"), Error, "line breaks");
  assertThrows(() => checkQuery("a\0b"), Error, "control");
});

Deno.test("regular expressions: what RE2 reads and git reads alike, and small", () => {
  assertEquals(checkRegex("line 1[[:digit:]]$", false).programSize() > 0, true);
  assertEquals(checkRegex("\\bword\\s+\\(x\\)", true).programSize() > 0, true);
  // Back-references (glibc backtracks on them) and repetitions past 1,000 are refused.
  assertThrows(() => checkRegex("(a)\\1", false), Error, "not a regular expression");
  assertThrows(() => checkRegex("a{1001}", false), Error, "not a regular expression");
  assertThrows(() => checkRegex("(a{1000}){1000}", false), Error);
  assertThrows(() => checkRegex("foo(", false), Error, "missing closing )");
  // An escape git would read as a plain letter.
  assertThrows(() => checkRegex("\\d+", false), Error, "\\d is not part of POSIX");
  assertThrows(() => checkRegex("x{400}", false), Error, "too large");
});
