import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { MAX_RAW_HTML_TAGS, renderMarkdown } from "./markdown.ts";

const targets = {
  dir: ["docs"],
  link: (p: string[]) => `/o/r/blob/main/${p.join("/")}`,
  image: (p: string[]) => `/o/r/raw/main/${p.join("/")}`,
};

Deno.test("script links in Markdown stay inert", () => {
  const html = renderMarkdown(
    "[x](javascript:alert(1)) [y](JaVaScRiPt:alert(1))\n\n[d](data:text/html;base64,PHNjcmlwdD4=)",
    targets,
  );
  assert(!/href="(javascript|data):/i.test(html), html);
});

Deno.test("raw HTML keeps GitHub's README subset and loses anything active", () => {
  const html = renderMarkdown(
    [
      '<p align="center"><img src="logo.png" width="120" onerror="alert(1)" style="color:red"></p>',
      "",
      "<!-- a comment -->",
      "",
      "<details open>\n<summary>More</summary>\n\n**bold**\n\n</details>",
      "",
      '<kbd>Ctrl</kbd><sup>2</sup><div id="main" class="evil">x</div>',
      '<script>alert(2)</script><style>p{}</style><iframe src="/x"></iframe>',
      '<a href="javascript:alert(3)">j</a><a href=" jav&#x61;script:alert(4)">k</a>',
      '<img src="data:image/png;base64,AAAA"><input type="text" value="t"><input type="checkbox">',
      '<form action="/x"><button>b</button></form>',
    ].join("\n"),
    targets,
  );
  for (
    const kept of [
      '<p align="center"><img src="/o/r/raw/main/docs/logo.png" width="120" alt="logo.png"></p>',
      '<details open="">\n<summary>More</summary>\n<p><strong>bold</strong></p>\n</details>',
      "<kbd>Ctrl</kbd><sup>2</sup>",
      '<div id="user-content-main">x</div>',
      '<input type="checkbox" disabled="">',
    ]
  ) assert(html.includes(kept), `${kept} in ${html}`);
  for (
    const gone of ["alert", "style", "comment", "<iframe", "<form", "<button", "data:", "evil"]
  ) {
    assert(!html.includes(gone), `${gone} in ${html}`);
  }
  assert(!html.includes('type="text"'), html);
});

Deno.test("raw HTML cannot close the page's own elements", () => {
  const html = renderMarkdown("x</div></div></main>\n\n<div><p>open", targets);
  assertEquals(html.match(/<div/g)?.length, html.match(/<\/div>/g)?.length, html);
  assert(!html.includes("</main>"), html);
  // A start tag a browser takes as closing an open <div> (<li>, <dd>, <dt>): the output is the
  // tree the browser builds, so no end tag is left over to close the page's own <div>.
  for (
    const list of [
      "<ul><li><div><li></li></div></li></ul>",
      "<dl><dd><div><dd></dd></div></dd></dl>",
    ]
  ) {
    const out = renderMarkdown(`${list}\n\n# After`, targets);
    const opened = out.match(/<div/g)?.length ?? 0;
    assertEquals(out.match(/<\/div>/g)?.length ?? 0, opened, out);
    assert(out.includes("<div></div>"), out); // closed where the browser closes it
  }
});

Deno.test("links and images in raw HTML follow the same rules as Markdown's", () => {
  const html = renderMarkdown(
    [
      '<a href="../src/a.ts#L2">a</a> <a href="guide.md#advanced">g</a> <a href="#install">i</a>',
      '<a href="https://e.org/" rel="opener">e</a> <a name="top"></a>',
      '<a href="https://ci.example/"><img src="https://ci.example/b.svg" alt="CI"></a>',
      '<img src="//cdn.example/x.png">',
    ].join("\n"),
    targets,
  );
  assert(html.includes('<a href="/o/r/blob/main/src/a.ts#L2">a</a>'), html);
  assert(html.includes('<a href="/o/r/blob/main/docs/guide.md#user-content-advanced">'), html);
  assert(html.includes('<a href="#user-content-install">'), html);
  assert(html.includes('<a href="https://e.org/" rel="nofollow noopener noreferrer">e</a>'), html);
  assert(html.includes('<a name="user-content-top"></a>'), html);
  assert(
    html.includes(
      '<a href="https://ci.example/" rel="nofollow noopener noreferrer"><span class="external-image">CI (image on another site)</span></a>',
    ),
    html,
  );
  assert(
    html.includes('<a href="//cdn.example/x.png" class="external-image" rel="nofollow'),
    html,
  );
  assert(!/<img[^>]+src="(https?:)?\/\//.test(html), html);
});

Deno.test("links and images inside the repository resolve to its pages", () => {
  const html = renderMarkdown(
    "[a](../src/a.ts#L2) ![logo](img/l.png) [e](https://e.org/)",
    targets,
  );
  assert(html.includes('href="/o/r/blob/main/src/a.ts#L2"'), html);
  assert(html.includes('src="/o/r/raw/main/docs/img/l.png"'), html);
  assert(html.includes('href="https://e.org/" rel="nofollow noopener noreferrer"'), html);
});

Deno.test("bidi controls in Markdown are replaced", () => {
  assertEquals(renderMarkdown("a\u202eb", targets).includes("\u202e"), false);
});

Deno.test("headings get GitHub's slugs as ids, prefixed, duplicates numbered", () => {
  const html = renderMarkdown(
    [
      "# Installation",
      "## Getting *started*: the `init` step!",
      "## Überblick & Ziele",
      "## snake_case and-dash",
      "## Installation",
      "## Installation",
      "## Installation-1",
      "## Main",
    ].join("\n"),
    targets,
  );
  const ids = [...html.matchAll(/<h\d id="([^"]*)">/g)].map((m) => m[1]);
  assertEquals(ids, [
    "user-content-installation",
    "user-content-getting-started-the-init-step",
    "user-content-überblick--ziele",
    "user-content-snake_case-and-dash",
    "user-content-installation-1",
    "user-content-installation-2",
    // Taken by the second duplicate's slug already: numbered on.
    "user-content-installation-1-1",
    // Never the page's own `main` (or `L12`).
    "user-content-main",
  ]);
});

Deno.test("links to headings, here and in other Markdown files, name the prefixed ids", () => {
  const html = renderMarkdown(
    "[i](#installation) [a](guide.md#advanced) [c](../src/a.ts#L2) [l](#L3) [t](#)",
    targets,
  );
  assert(html.includes('href="#user-content-installation"'), html);
  assert(html.includes('href="/o/r/blob/main/docs/guide.md#user-content-advanced"'), html);
  assert(html.includes('href="/o/r/blob/main/src/a.ts#L2"'), html);
  assert(html.includes('href="#L3"'), html);
  assert(html.includes('href="#"'), html);
});

Deno.test("a table's column alignment is a class, never an inline style", () => {
  const html = renderMarkdown("| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n", targets);
  assert(!html.includes("style="), html);
  assert(html.includes('<th class="align-left">a</th>'), html);
  assert(html.includes('<th class="align-center">b</th>'), html);
  assert(html.includes('<td class="align-right">3</td>'), html);
  assert(html.includes("<td>4</td>"), html);
});

Deno.test("task list items get a disabled checkbox in place of their marker", () => {
  const html = renderMarkdown("- [ ] to do\n- [x] done\n- [X] also\n- [y] text\n- plain", targets);
  const items = html.match(/<li[^]*?<\/li>/g)!;
  assertEquals(items.slice(0, 3).map((li) => li.includes(" checked")), [false, true, true]);
  for (const li of items.slice(0, 3)) {
    assert(li.startsWith('<li class="task-list-item"><input type="checkbox"'), li);
    assert(li.includes(" disabled") && !li.includes("["), li);
  }
  assertEquals(items.slice(3), ["<li>[y] text</li>", "<li>plain</li>"]);
  // Only a list item's start: a marker elsewhere is text.
  assert(!renderMarkdown("[ ] not a task", targets).includes("<input"));
});

Deno.test("a code fence in a language the file pages know is highlighted; others stay plain", () => {
  const ts = renderMarkdown("```ts\nconst a = 1;\n```", targets);
  assert(ts.includes('<span class="hljs-keyword">const</span>'), ts);
  const unknown = renderMarkdown("```nosuchlang\n<b>x</b>\n```", targets);
  assert(unknown.includes("&lt;b&gt;x&lt;/b&gt;") && !unknown.includes("hljs"), unknown);
  // Highlighting escapes what it does not mark.
  const html = renderMarkdown("```html\n<script>alert(1)</script>\n```", targets);
  assert(!html.includes("<script"), html);
});

Deno.test("an image on another site becomes a link named by its alt text, never a load", () => {
  const html = renderMarkdown(
    "![build](https://ci.example/b.svg) ![](//cdn.example/x.png) [![tag](https://x.example/t.svg)](https://x.example/) ![logo](img/l.png)",
    targets,
  );
  assert(!/<img[^>]+src="(https?:)?\/\//.test(html), html);
  assert(html.includes('<a href="https://ci.example/b.svg" class="external-image"'), html);
  assert(html.includes(">build (image on another site)</a>"), html);
  assert(html.includes(">image (image on another site)</a>"), html);
  // Inside a link, the text alone: no link within a link.
  assert(
    html.includes(
      '<a href="https://x.example/" rel="nofollow noopener noreferrer"><span class="external-image">tag (image',
    ),
    html,
  );
  assert(!/<a [^>]*>(<span[^>]*>)?[^<]*<a /.test(html), html);
  assert(html.includes('<img src="/o/r/raw/main/docs/img/l.png" alt="logo">'), html);
});

Deno.test("a heading's id leaves out an image on another site in it", () => {
  const html = renderMarkdown("# Signet ![CI](https://ci.example/badge.svg)", targets);
  assert(html.includes('<h1 id="user-content-signet-">'), html);
});

Deno.test("fences are highlighted up to one budget per document, the rest plain", () => {
  const fence = "```ts\n" + "const a = 1;\n".repeat(4000) + "```\n\n"; // ~52 KB each
  const html = renderMarkdown(fence.repeat(4), targets);
  const highlighted = html.split("<pre>").filter((p) => p.includes("hljs-keyword")).length;
  assertEquals(highlighted, 1);
  // The next document has its own budget.
  assert(renderMarkdown(fence, targets).includes("hljs-keyword"));
});

Deno.test("GitHub's alerts, footnotes and emoji shortcodes render as GitHub renders them", () => {
  const html = renderMarkdown(
    "> [!WARNING]\n> Careful.\n\nA claim[^1] :tada:\n\n[^1]: Its source.\n",
    targets,
  );
  assert(html.includes('<div class="markdown-alert markdown-alert-warning">'), html);
  assert(html.includes('<p class="markdown-alert-title">Warning</p><p>Careful.</p>'), html);
  // The footnote's links and ids are under the prefix, like headings'.
  assert(html.includes('<a id="user-content-fnref1" href="#user-content-fn1">[1]</a>'), html);
  assert(html.includes('<li id="user-content-fn1" class="footnote-item">'), html);
  assert(html.includes('href="#user-content-fnref1"'), html);
  assert(html.includes("A claim") && html.includes("\u{1F389}"), html);
  assert(!html.includes("[!WARNING]") && !html.includes(":tada:"), html);
});

Deno.test("a document of more raw HTML tags than the budget shows all its HTML as text", () => {
  const within = renderMarkdown("<b>x</b> ".repeat(10), targets);
  assert(within.includes("<b>x</b>"), within);
  const over = renderMarkdown("<div>\n" + "<b>x".repeat(MAX_RAW_HTML_TAGS), targets);
  assert(over.startsWith("&lt;div&gt;\n&lt;b&gt;x"), over.slice(0, 100));
  assert(!over.includes("<b>"), "no tag of it is rendered");
});
