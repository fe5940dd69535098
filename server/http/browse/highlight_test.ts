import { assertEquals } from "../../../tests/helpers/assert.ts";
import { highlightLines, languageOf, splitHtmlLines } from "./highlight.ts";

Deno.test("spans open across a newline are closed and reopened on each line", () => {
  assertEquals(splitHtmlLines('a<span class="c">/* x\ny */</span>b\nc'), [
    'a<span class="c">/* x</span>',
    '<span class="c">y */</span>b',
    "c",
  ]);
});

Deno.test("file content is escaped, bidi controls are shown, not applied", () => {
  const lines = highlightLines('<script>alert("x")</script>\n\u202eevil\n', "page.txt");
  assertEquals(lines.length, 2);
  assertEquals(lines[0], "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  assertEquals(lines[1].includes("\u202e"), false);
  assertEquals(lines[1].includes("U+202E"), true);
});

Deno.test("languages come from file names", () => {
  assertEquals(languageOf("main.ts"), "typescript");
  assertEquals(languageOf("Makefile"), "makefile");
  assertEquals(languageOf("README"), null);
  assertEquals(languageOf("x.constructor"), null);
  const ts = highlightLines("const a = 1;\n", "a.ts");
  assertEquals(ts[0].includes('class="hljs-keyword"'), true);
});
