import { assertEquals } from "../../../tests/helpers/assert.ts";
import {
  isAbbreviatedId,
  isSafePath,
  refAtStart,
  resolveRelative,
  splitRefAndPath,
  symlinkTarget,
  urlSegments,
} from "./paths.ts";

const refs: Record<string, "branch" | "tag"> = {
  main: "branch",
  feature: "branch",
  "feature/x": "branch",
  "v1.0": "tag",
  "rel/v2": "tag",
};
const kindOf = (name: string) => refs[name] ?? null;
const id = "0123456789abcdef0123456789abcdef01234567";

Deno.test("the longest prefix naming a ref wins, the rest is the path", () => {
  assertEquals(splitRefAndPath(["feature", "x", "src", "a.ts"], kindOf), {
    ref: "feature/x",
    kind: "branch",
    path: ["src", "a.ts"],
  });
  assertEquals(splitRefAndPath(["feature", "y"], kindOf), {
    ref: "feature",
    kind: "branch",
    path: ["y"],
  });
  assertEquals(splitRefAndPath(["rel", "v2"], kindOf), { ref: "rel/v2", kind: "tag", path: [] });
  assertEquals(splitRefAndPath(["main"], kindOf), { ref: "main", kind: "branch", path: [] });
});

Deno.test("a full commit id is a ref when no ref name matches; an abbreviated one is not", () => {
  assertEquals(splitRefAndPath([id, "README.md"], kindOf), {
    ref: id,
    kind: "commit",
    path: ["README.md"],
  });
  assertEquals(splitRefAndPath([id.slice(0, 12)], kindOf), null);
  assertEquals(splitRefAndPath([id.toUpperCase()], kindOf), null);
});

Deno.test("the ref at the start is found whatever follows it; none is null", () => {
  assertEquals(refAtStart(["feature", "x", "..", "etc"], kindOf), {
    ref: "feature/x",
    kind: "branch",
    length: 2,
  });
  assertEquals(splitRefAndPath(["feature", "x", "..", "etc"], kindOf), null);
  assertEquals(refAtStart([id, "a"], kindOf), { ref: id, kind: "commit", length: 1 });
  assertEquals(refAtStart(["nope", "main"], kindOf), null);
  assertEquals(refAtStart([], kindOf), null);
});

Deno.test("an abbreviated id is 7 to 63 lower-case hex digits, never a full id", () => {
  assertEquals(isAbbreviatedId(id.slice(0, 7)), true);
  assertEquals(isAbbreviatedId(id.slice(0, 39)), true);
  assertEquals(isAbbreviatedId(id.slice(0, 6)), false);
  assertEquals(isAbbreviatedId(id), false);
  assertEquals(isAbbreviatedId("a".repeat(63)), true);
  assertEquals(isAbbreviatedId("a".repeat(64)), false);
  assertEquals(isAbbreviatedId("ABCDEF1"), false);
  assertEquals(isAbbreviatedId("abcdefg"), false);
  assertEquals(isAbbreviatedId("abcdef1^{tree}"), false);
});

Deno.test("unknown refs, options and unsafe paths are refused", () => {
  assertEquals(splitRefAndPath([], kindOf), null);
  assertEquals(splitRefAndPath(["nope", "a"], kindOf), null);
  assertEquals(splitRefAndPath(["--output=/tmp/x"], kindOf), null);
  assertEquals(splitRefAndPath(["main", "..", "etc"], kindOf), null);
  assertEquals(splitRefAndPath(["main", "a\nb"], kindOf), null);
  assertEquals(isSafePath(["a", "."]), false);
  assertEquals(isSafePath(["x".repeat(5000)]), false);
  assertEquals(isSafePath(['"q"', "<b>", "\u202etxt.exe", "-n"]), true);
});

Deno.test("URL segments are percent-decoded; a bad escape is refused", () => {
  assertEquals(urlSegments("feature%2Fx/src//a%20b.ts/"), ["feature", "x", "src", "a b.ts"]);
  assertEquals(urlSegments("%E0%A4%A"), null);
  assertEquals(urlSegments(""), []);
});

Deno.test("relative links resolve inside the repository and never above its root", () => {
  assertEquals(resolveRelative(["docs"], "../src/a.ts#L3"), {
    path: ["src", "a.ts"],
    fragment: "#L3",
  });
  assertEquals(resolveRelative(["docs"], "../../../../etc/passwd"), {
    path: ["etc", "passwd"],
    fragment: "",
  });
  assertEquals(resolveRelative(["docs"], "/img/logo.png?raw=1"), {
    path: ["img", "logo.png"],
    fragment: "",
  });
  assertEquals(resolveRelative([], "https://example.com/"), null);
  assertEquals(resolveRelative([], "javascript:alert(1)"), null);
  assertEquals(resolveRelative([], "//evil.example/x"), null);
  assertEquals(resolveRelative([], "#usage"), null);
});

Deno.test("a symbolic link's target inside the repository, or null when it leaves it", () => {
  assertEquals(symlinkTarget(["docs"], "../src/./main.ts"), ["src", "main.ts"]);
  assertEquals(symlinkTarget([], "a//b/"), ["a", "b"]);
  assertEquals(symlinkTarget(["docs"], "../../etc/passwd"), null);
  assertEquals(symlinkTarget(["docs"], "/etc/passwd"), null);
  // A link's `..` leaves the repository; a Markdown link's stays at the root.
  assertEquals(resolveRelative([], "../x.md")?.path, ["x.md"]);
});
