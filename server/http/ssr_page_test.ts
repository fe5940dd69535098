/** The server-rendered page shell: data escaped for its element, no script without data. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { jsonForHtml, renderedHtml } from "./ssr_page.ts";

Deno.test("ssr page: data cannot end its element; JSON.parse reads it back", () => {
  const value = { t: "</script><script>alert(1)</script><!-- \u2028", n: 1 };
  const text = jsonForHtml(value);
  assertEquals(text.includes("<"), false);
  assertEquals(JSON.parse(text), value);
  const html = renderedHtml("registry", { title: "a <b> & c", body: "<p>x</p>", data: value });
  assertEquals(html.split("<script").length - 1, 2, "the module and the data element");
  assertEquals(html.includes("<title>a &lt;b&gt; &amp; c</title>"), true);
  assertEquals(html.includes('<div id="app"><p>x</p></div>'), true);
  assertEquals(html.includes("<noscript>"), false);
});

Deno.test("ssr page: a page without data runs no script", () => {
  const html = renderedHtml("registry", { title: "Not found", body: "<h1>Not found</h1>" });
  assertEquals(html.includes("<script"), false);
  // Styled all the same: the registry's stylesheet is in the page (allowed by its hash).
  assertEquals(/<style>[^<]+<\/style>/.test(html), true);
});
