/**
 * The registry's documentation as HTML for browsers: Markdown rendered with markdown-it (raw HTML
 * in the source is escaped, `html: false`; unsafe link schemes are refused by its link check),
 * headings given ids so sections can be linked, tables in a box that scrolls on its own on a
 * narrow screen, the text in sections (one per level-2 heading); and the OpenAPI document as a
 * page of operations and schemas. Pages are rendered once and kept: their sources are compiled
 * into the binary.
 */
import MarkdownIt from "markdown-it";
import { renderApiPage, renderMarkdownPage } from "../../../ui/registry/ssr.tsx";
import type { OpenApiDoc } from "../../../ui/registry/ssr.tsx";
import { renderedHtml } from "../../http/ssr_page.ts";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** A heading's id: its text in lower case, runs of other characters as one `-`. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || "section";
}

md.core.ruler.push("heading_ids", (state) => {
  const seen = new Map<string, number>();
  for (let i = 0; i < state.tokens.length; i++) {
    const token = state.tokens[i];
    if (token.type !== "heading_open") continue;
    const base = slug(state.tokens[i + 1]?.content ?? "");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    token.attrSet("id", n === 0 ? base : `${base}-${n + 1}`);
  }
});
// Boxes that may scroll sideways take the keyboard focus, so they can be scrolled without a mouse.
md.renderer.rules.table_open = () =>
  '<div class="table-wrap" tabindex="0"><table class="doc-table">\n';
for (const rule of ["fence", "code_block"] as const) {
  const render = md.renderer.rules[rule]!;
  md.renderer.rules[rule] = (tokens, idx, options, env, self) =>
    render(tokens, idx, options, env, self).replace(/^<pre>/, '<pre tabindex="0">');
}
md.renderer.rules.table_close = () => "</table></div>\n";
// The document in sections: what comes before the first level-2 heading, then each such heading
// up to the next. The page's stylesheet leaves a section below the fold unrendered until scrolled
// near (content-visibility, docs.css).
md.core.ruler.push("h2_sections", (state) => {
  if (state.inlineMode || state.tokens.length === 0) return;
  const tokens = [];
  for (const token of state.tokens) {
    const h2 = token.type === "heading_open" && token.tag === "h2" && token.level === 0;
    if (h2 && tokens.length > 0) tokens.push(new state.Token("doc_section_close", "section", -1));
    if (h2 || tokens.length === 0) tokens.push(new state.Token("doc_section_open", "section", 1));
    tokens.push(token);
  }
  tokens.push(new state.Token("doc_section_close", "section", -1));
  state.tokens = tokens;
});
md.renderer.rules.doc_section_open = () => '<section class="doc-section">\n';
md.renderer.rules.doc_section_close = () => "</section>\n";

/** Inline Markdown (an OpenAPI description) as HTML. */
export function markdownInline(text: string): string {
  return md.renderInline(text);
}

/** The first level-1 heading of `markdown`, as plain text. */
function titleOf(markdown: string): string {
  return /^# (.+)$/m.exec(markdown)?.[1].replace(/`/g, "") ?? "Documentation";
}

const pages = new Map<string, string>();

/** The HTML page of the Markdown document `markdown`, served at `path`. */
export function markdownDocPage(path: string, markdown: string): string {
  let html = pages.get(path);
  if (html === undefined) {
    html = renderedHtml("registry", {
      title: `${titleOf(markdown)} · Signet registry`,
      body: renderMarkdownPage(path, md.render(markdown)),
    });
    pages.set(path, html);
  }
  return html;
}

/** The HTML page of the API's operations and schemas, from its OpenAPI document. */
export function apiDocPage(doc: unknown): string {
  let html = pages.get("/v1/docs/api");
  if (html === undefined) {
    html = renderedHtml("registry", {
      title: "API operations · Signet registry",
      body: renderApiPage(doc as OpenApiDoc, markdownInline),
    });
    pages.set("/v1/docs/api", html);
  }
  return html;
}
