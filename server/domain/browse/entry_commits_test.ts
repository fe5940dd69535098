/** Reading `git log --name-only -z` output into each entry's last commit, piece by piece. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { LogNames } from "./entry_commits.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
// As git writes them: FORMAT's fields, git's NUL after them, and the paths after a newline.
const record = (id: string, date: number, subject: string, paths: string[]) =>
  `\0${id}\0${date}\0Ada\0${subject}\0${paths.length ? "\n" : ""}${
    paths.map((p) => `${p}\0`).join("")
  }`;

function entries(prefix: string, pieces: string[]): [string, string][] {
  const parser = new LogNames(prefix);
  return pieces.flatMap((p) =>
    [...parser.feed(p)].map(([e, c]): [string, string] => [e, c.id.slice(0, 1)])
  );
}

Deno.test("entries below the directory, each with the commit that listed it", () => {
  const out = record(A, 2, "second", ["src/a.ts", "src/lib/b.ts", "README.md"]) +
    record(B, 1, "first", ["src/a.ts", "src/c\nd.ts"]);
  assertEquals(entries("src/", [out]), [
    ["a.ts", "a"],
    ["lib", "a"],
    ["a.ts", "b"],
    ["c\nd.ts", "b"],
  ]);
  assertEquals(entries("", [out]).map(([e]) => e), ["src", "src", "README.md", "src", "src"]);
});

Deno.test("long subjects, empty fields, names that look like records: output split anywhere", () => {
  const out = record(A, 2, "s".repeat(5000), ["x/1", "x/2"]) + record(B, 1, "", []) +
    record(B, 1, "first", ["x/3", "x/\n4", "\nx/5", `x/\x1e${A}`]);
  assertEquals(entries("x/", [out]), [
    ["1", "a"],
    ["2", "a"],
    ["3", "b"],
    ["\n4", "b"],
    [`\x1e${A}`, "b"],
  ]);
  const whole = entries("x/", [out]);
  for (let cut = 1; cut < out.length; cut++) {
    assertEquals(entries("x/", [out.slice(0, cut), out.slice(cut)]), whole, `cut at ${cut}`);
  }
});
