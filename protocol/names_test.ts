import { assertEquals, assertThrows } from "../tests/helpers/assert.ts";
import { DomainError } from "./errors.ts";
import { parseRepoPath, validateRepoName } from "./names.ts";

Deno.test("a repository name loses one .git suffix", () => {
  assertEquals(validateRepoName("tools.git"), "tools");
  assertEquals(validateRepoName("tools"), "tools");
  assertEquals(validateRepoName("my.tools"), "my.tools");
});

Deno.test("a repository name that would still end in .git is refused", () => {
  assertThrows(() => validateRepoName("tools.git.git"), DomainError, "at most once");
  assertThrows(() => parseRepoPath("alice/tools.git.git"), DomainError, "at most once");
});

Deno.test("validating a repository name twice gives the same name", () => {
  for (const input of ["a", "a.git", "a.b", "a-b_c.git", "x.gitx"]) {
    const once = validateRepoName(input);
    assertEquals(validateRepoName(once), once);
  }
});

Deno.test("a repository path is owner and name, both validated", () => {
  assertEquals(parseRepoPath("/alice/tools.git"), { owner: "alice", name: "tools" });
  assertThrows(() => parseRepoPath("alice/tools/extra"), DomainError, "must be <owner>/<name>");
  assertThrows(() => parseRepoPath("alice/..x"), DomainError, "repository name");
});
