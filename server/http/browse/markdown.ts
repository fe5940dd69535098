/**
 * Markdown (READMEs, `.md` files) rendered with markdown-it and the plugins for GitHub's alerts,
 * footnotes and emoji shortcodes, GitHub's way: raw HTML allowed, then
 * the whole output filtered and its links resolved by `safeReadmeHtml` (markdown_html.ts), so a
 * `<script>` or an `onerror` in a README never reaches the page. Bidi controls become U+FFFD.
 * Headings get GitHub's slugs as ids, under HEADING_ID_PREFIX so that no README can take an id
 * the page itself uses (`main`, `L12`). A table column's alignment is a class (`align-center`),
 * never the inline style markdown-it writes, which the pages' CSP refuses.
 */
import MarkdownIt from "markdown-it";
import { full as emoji } from "markdown-it-emoji";
// @ts-types="@types/markdown-it-footnote"
import footnote from "markdown-it-footnote";
import alerts from "markdown-it-github-alerts";
import { BIDI_CONTROLS, highlightFence, MAX_HIGHLIGHT_BYTES } from "./highlight.ts";
import { HEADING_ID_PREFIX, type LinkTargets, safeReadmeHtml } from "./markdown_html.ts";

export { isMarkdown, type LinkTargets } from "./markdown_html.ts";

const md = new MarkdownIt({
  html: true,
  linkify: true,
  typographer: false,
  // Fences in a language the file pages highlight get the same classes; others stay plain ("").
  highlight: (code, info) => {
    // One budget per document (renders are synchronous): a README of many big fences costs what
    // one big file does, and the fences past it are shown plain.
    if (code.length > fenceBudget) return "";
    fenceBudget -= code.length;
    return highlightFence(code, info) ?? "";
  },
})
  // GitHub's extensions READMEs use: `> [!NOTE]` callouts (titled, without icons), footnotes
  // (`[^1]`) and emoji shortcodes (`:tada:`).
  .use(alerts, { icons: {} })
  .use(footnote)
  .use(emoji);

/** Fence bytes the document being rendered may still have highlighted. */
let fenceBudget = 0;

type Token = ReturnType<typeof md.parse>[number];

/** Renders `source` (Markdown) to HTML, resolving repository links through `targets`. */
export function renderMarkdown(source: string, targets: LinkTargets): string {
  const env = {};
  const tokens = md.parse(source.replace(BIDI_CONTROLS, "\ufffd"), env);
  if (rawTagCount(tokens) > MAX_RAW_HTML_TAGS) rawHtmlAsText(tokens);
  const slugs = new Slugger();
  for (const [i, token] of tokens.entries()) {
    if (token.type === "list_item_open") {
      taskItem(token, tokens[i + 1], tokens[i + 2]);
    } else if (token.type === "heading_open") {
      token.attrSet("id", HEADING_ID_PREFIX + slugs.slug(textOf(tokens[i + 1])));
    } else if (token.type === "th_open" || token.type === "td_open") {
      alignByClass(token);
    }
  }
  fenceBudget = MAX_HIGHLIGHT_BYTES;
  return safeReadmeHtml(md.renderer.render(tokens, md.options, env), targets);
}

/**
 * The most raw HTML tags a document may use and have them rendered; past it, all of its raw HTML
 * is shown as text. HTML parsers keep open elements on a stack, and htmlparser2's (under
 * sanitize-html) costs time in its depth: a file of nothing but unclosed tags would take seconds.
 * No README written for people comes near it.
 */
export const MAX_RAW_HTML_TAGS = 10_000;

const TAG_START = /<[a-z]/gi;

// The start tags in the document's raw HTML (blocks, and inline HTML in its paragraphs).
function rawTagCount(tokens: Token[]): number {
  let n = 0;
  for (const t of tokens) {
    if (t.type === "html_block") n += t.content.match(TAG_START)?.length ?? 0;
    for (const c of t.children ?? []) {
      if (c.type === "html_inline") n += c.content.match(TAG_START)?.length ?? 0;
    }
  }
  return n;
}

// Every raw HTML token becomes text, shown (escaped) as written.
function rawHtmlAsText(tokens: Token[]): void {
  for (const t of tokens) {
    if (t.type === "html_block") t.type = "text";
    for (const c of t.children ?? []) if (c.type === "html_inline") c.type = "text";
  }
}

/**
 * A heading's slug as GitHub makes it (github-slugger): lower case, every character but letters,
 * marks, digits, `-`, `_` (connector punctuation) and spaces removed, spaces made `-`.
 */
export function slugOf(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-");
}

/** Slugs of one document's headings: a slug met again gets `-1`, `-2`, … (never one taken). */
export class Slugger {
  #seen = new Map<string, number>();
  /** The next heading's slug. */
  slug(text: string): string {
    const base = slugOf(text);
    let slug = base;
    while (this.#seen.has(slug)) {
      const n = this.#seen.get(base)! + 1;
      this.#seen.set(base, n);
      slug = `${base}-${n}`;
    }
    this.#seen.set(slug, 0);
    return slug;
  }
}

/** A new token of markdown-it's Token class, taken from `like` (the package exports none). */
function tokenLike(like: Token, type: string, tag: string, nesting: number): Token {
  const TokenOf = like.constructor as new (type: string, tag: string, nesting: number) => Token;
  return new TokenOf(type, tag, nesting);
}

/** A task list item's marker at the start of its text: `[ ] `, `[x] ` or `[X] `. */
const TASK_MARKER = /^\[([ xX])\] /;

/**
 * A list item starting `[ ] ` or `[x] ` (GitHub's task list) becomes one with a disabled checkbox
 * in place of the marker, as GitHub renders it: `item` is the item's opening token, `open` and
 * `inline` the two after it (its first paragraph and that paragraph's text).
 */
function taskItem(item: Token, open: Token | undefined, inline: Token | undefined): void {
  if (open?.type !== "paragraph_open" || inline?.type !== "inline") return;
  const first = inline.children?.[0];
  const marker = first?.type === "text" ? TASK_MARKER.exec(first.content) : null;
  if (!first || !marker) return;
  first.content = first.content.slice(marker[0].length);
  const box = tokenLike(first, "html_inline", "", 0);
  box.content = `<input type="checkbox" class="task-list-item-checkbox" aria-label="Task" disabled${
    marker[1] === " " ? "" : " checked"
  }> `;
  inline.children!.unshift(box);
  item.attrJoin("class", "task-list-item");
}

// A table cell's `style="text-align:…"` (all markdown-it writes there) as `class="align-…"`.
function alignByClass(cell: Token): void {
  const style = cell.attrGet("style");
  if (style === null) return;
  cell.attrs = (cell.attrs ?? []).filter(([name]) => name !== "style");
  const align = /^text-align:(left|center|right)$/.exec(String(style))?.[1];
  if (align) cell.attrJoin("class", `align-${align}`);
}

// A heading's text as the reader sees it: its inline token's text and code, markup left out.
function textOf(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((t) => t.type === "text" || t.type === "code_inline")
    .map((t) => t.content)
    .join("");
}
