/**
 * Where tests live (docs/architecture.md, "Tests"): every test file is named `x_test.ts`; under
 * `tests/` they are end-to-end tests in `tests/e2e/<area>/` or checks over the checkout in
 * `tests/project/`; any other test sits beside its module.
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SKIP = new Set([
  ".git",
  "node_modules",
  "data",
  "dist",
  ".artifacts",
  "vectors",
  "generated",
]);
const AREAS = ["http", "ssh", "cli", "registry", "ui", "ops", "cluster", "browse"];

/** Every file Deno's test runner would take for a test, relative to the checkout. */
function testFiles(dir = "", out: string[] = []): string[] {
  for (const e of Deno.readDirSync(`${ROOT}${dir}`)) {
    if (SKIP.has(e.name)) continue;
    const path = `${dir}${e.name}`;
    if (e.isDirectory) testFiles(`${path}/`, out);
    else if (isTestName(e.name)) out.push(path);
  }
  return out.sort();
}

/** Deno's test file patterns: `test.ts`, `x_test.ts`, `x.test.ts` (and the other extensions). */
export function isTestName(name: string): boolean {
  return /^(?:.*[._])?test\.(?:ts|tsx|mts|js|jsx|mjs)$/.test(name);
}

/** What is wrong with where test file `path` is or what it is called, or null. */
export function misplaced(path: string): string | null {
  if (!/[^/]_test\.ts$/.test(path)) return `${path}: not named x_test.ts`;
  if (!path.startsWith("tests/")) return null;
  const parts = path.split("/");
  if (parts[1] === "project" && parts.length === 3) return null;
  if (parts[1] === "e2e" && parts.length === 4 && AREAS.includes(parts[2])) return null;
  return `${path}: under tests/ only tests/e2e/<${AREAS.join("|")}>/ or tests/project/`;
}

Deno.test("the layout rule: names and places", () => {
  assertEquals(["a.test.ts", "a_test.ts", "test.ts", "a_test.tsx", "latest.ts"].map(isTestName), [
    true,
    true,
    true,
    true,
    false,
  ]);
  assertEquals(misplaced("server/ssh/io_test.ts"), null);
  assertEquals(misplaced("tests/e2e/ssh/git_test.ts"), null);
  assertEquals(misplaced("tests/project/readme_test.ts"), null);
  assert(misplaced("tests/ssh_git.test.ts") !== null);
  assert(misplaced("tests/git_test.ts") !== null);
  assert(misplaced("tests/e2e/git/x_test.ts") !== null);
  assert(misplaced("server/x.test.ts") !== null);
});

Deno.test("every test file is named x_test.ts and sits where docs/architecture.md says", () => {
  const files = testFiles();
  assert(files.includes("protocol/ssh/sshsig_test.ts"), "the walk misses a unit test");
  assert(files.includes("tests/e2e/ssh/git_test.ts"), "the walk misses an end-to-end test");
  assertEquals(files.map(misplaced).filter((m) => m !== null), []);
});
