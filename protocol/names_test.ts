import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { parseRepoPath, validateRepoName } from "./names.ts";

Deno.test("a repository name loses one .git suffix", () => {
  assertEquals(validateRepoName("tools.git"), "tools");
  assertEquals(validateRepoName("tools"), "tools");
  assertEquals(validateRepoName("my.tools"), "my.tools");
});

Deno.test("a repository name that would still end in .git is refused", () => {
  assertThrows(() => validateRepoName("tools.git.git"), /must not end in '\.git'/);
  assertThrows(() => parseRepoPath("alice/tools.git.git"), /must not end in '\.git'/);
});

Deno.test("validating a repository name twice gives the same name", () => {
  for (const input of ["a", "a.git", "a.b", "a-b_c.git", "x.gitx"]) {
    const once = validateRepoName(input);
    assertEquals(validateRepoName(once), once);
  }
});

Deno.test("a repository path is owner and name, both validated", () => {
  assertEquals(parseRepoPath("/alice/tools.git"), { owner: "alice", name: "tools" });
  assertThrows(() => parseRepoPath("alice/tools/extra"), /must be <owner>\/<name>/);
  assertThrows(() => parseRepoPath("alice/..x"), /repository name/);
});
