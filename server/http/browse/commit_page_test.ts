import { assertEquals } from "../../../tests/helpers/assert.ts";
import { diffHtml } from "./commit_page.tsx";

/** Each line's [old, new] numbers and class, read back from diffHtml's output. */
function numbered(html: string): string[] {
  return [
    ...html.matchAll(
      /<span(?: class="(\w+)")?(?: id="[^"]*")?><(?:i|a) [^>]*data-o="(\d*)" data-n="(\d*)"/g,
    ),
  ]
    .map(([, cls, o, n]) => `${cls ?? "-"} ${o}/${n}`);
}

Deno.test("a diff's lines carry their numbers in the old and the new file", () => {
  const patch = [
    "diff --git a/f b/f",
    "--- a/f",
    "+++ b/f",
    "@@ -9,3 +9,4 @@ fn",
    " same",
    "-gone",
    "+new one",
    "+new two",
    " same again",
    "@@ -120 +121 @@",
    "-x",
    "\\ No newline at end of file",
    "+y",
  ].join("\n");
  const html = diffHtml(patch);
  assertEquals(numbered(html), [
    "dm /",
    "dm /",
    "dm /",
    "dh /",
    "- 9/9",
    "dd 10/",
    "da /10",
    "da /11",
    "- 11/12",
    "dh /",
    "dd 120/",
    "- /",
    "da /121",
  ]);
  // The widest number sets the gutter: three digits at least.
  assertEquals(/^<pre class="diff digits-3">/.test(html), true);
  assertEquals(/class="diff digits-5"/.test(diffHtml("@@ -99999 +99999 @@\n-a\n+b")), true);
});

Deno.test("a diff's text is escaped and its numbers are hidden from screen readers", () => {
  const html = diffHtml("@@ -1 +1 @@\n-<b>x</b>\n+&y");
  assertEquals(html.includes("-&lt;b&gt;x&lt;/b&gt;"), true);
  assertEquals(html.includes("+&amp;y"), true);
  assertEquals(html.match(/<(i|a) aria-hidden="true"/g)?.length, 3);
});

Deno.test("a diff's hunk lines are anchors their numbers link to (L: a line of the old file, R: of the new)", () => {
  const html = diffHtml("diff --git a/f b/f\n@@ -4,2 +4,2 @@\n same\n-old\n+new", "diff-2");
  const anchors = [...html.matchAll(/<span(?: class="\w+")? id="([^"]+)"><a [^>]*href="#([^"]+)"/g)]
    .map(([, id, href]) => `${id} ${href}`);
  assertEquals(anchors, ["diff-2-R4 diff-2-R4", "diff-2-L5 diff-2-L5", "diff-2-R5 diff-2-R5"]);
  // The header lines have no anchor, and the links stay out of the tab order.
  assertEquals(html.match(/ id="/g)?.length, 3);
  assertEquals(html.match(/<a [^>]*tabindex="-1"/g)?.length, 3);
});
