/**
 * Markdown (READMEs, `.md` files) rendered with markdown-it: raw HTML off (`html: false`, so a
 * `<script>` in a README is shown as text), markdown-it's own link check (no `javascript:`,
 * `vbscript:`, `file:` or `data:` links), links inside the repository resolved to its pages, and
 * every link to elsewhere marked `nofollow noopener noreferrer`. Bidi controls become U+FFFD.
 * Headings get GitHub's slugs as ids, under HEADING_ID_PREFIX so that no README can take an id
 * the page itself uses (`main`, `L12`); links to them (`#installation`, `guide.md#advanced`) are
 * written with the prefix. A table column's alignment is a class (`align-center`), never the
 * inline style markdown-it writes, which the pages' CSP refuses.
 */
import MarkdownIt from "markdown-it";
import { resolveRelative } from "../../domain/browse/paths.ts";
import { BIDI_CONTROLS, highlightFence, MAX_HIGHLIGHT_BYTES } from "./highlight.ts";

/** Turns a path inside the repository into a URL: `link` for links, `image` for images. */
export interface LinkTargets {
  /** The directory of the Markdown file, as segments (links are relative to it). */
  dir: string[];
  link: (path: string[]) => string;
  image: (path: string[]) => string;
}

/** What every heading's id starts with (GitHub's `user-content-`). */
export const HEADING_ID_PREFIX = "user-content-";

/** Whether a file name is Markdown's. */
export function isMarkdown(name: string): boolean {
  return /\.(md|markdown|mdown|mkd)$/i.test(name);
}

const md = new MarkdownIt({
  html: false,
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
});

/** Fence bytes the document being rendered may still have highlighted. */
let fenceBudget = 0;

type Token = ReturnType<typeof md.parse>[number];

/** Renders `source` (Markdown) to HTML, resolving repository links through `targets`. */
export function renderMarkdown(source: string, targets: LinkTargets): string {
  const env = { targets };
  const tokens = md.parse(source.replace(BIDI_CONTROLS, "\ufffd"), env);
  const slugs = new Slugger();
  for (const [i, token] of tokens.entries()) {
    if (token.type === "list_item_open") {
      taskItem(token, tokens[i + 1], tokens[i + 2]);
    } else if (token.type === "heading_open") {
      token.attrSet("id", HEADING_ID_PREFIX + slugs.slug(textOf(tokens[i + 1])));
    } else if (token.type === "th_open" || token.type === "td_open") {
      alignByClass(token);
    }
    for (const t of token.children ?? []) {
      if (t.type === "link_open") {
        const href = String(t.attrGet("href") ?? "");
        const inside = resolveRelative(targets.dir, href);
        if (inside) {
          const last = inside.path.at(-1) ?? "";
          const fragment = isMarkdown(last) ? headingFragment(inside.fragment) : inside.fragment;
          t.attrSet("href", targets.link(inside.path) + fragment);
        } else if (href.startsWith("#")) {
          t.attrSet("href", headingFragment(href));
        } else {
          t.attrSet("rel", "nofollow noopener noreferrer");
        }
      } else if (t.type === "image") {
        const src = String(t.attrGet("src") ?? "");
        const inside = resolveRelative(targets.dir, src);
        if (inside) t.attrSet("src", targets.image(inside.path));
      }
    }
  }
  // After the headings' ids: a badge in a heading (`# Signet ![CI](https://…)`) adds no words.
  for (const token of tokens) {
    if (token.children) token.children = externalImagesAsLinks(token.children);
  }
  fenceBudget = MAX_HIGHLIGHT_BYTES;
  return md.renderer.render(tokens, md.options, env);
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

/**
 * Each image on another site (`![build](https://ci.example/badge.svg)`) in `children` (an inline
 * token's) as a link to it named by its alt text, or that text alone inside a link: the pages'
 * CSP loads images from Signet alone, since fetching one would tell that site who reads the README
 * (GitHub proxies them instead). Every other token is kept.
 */
function externalImagesAsLinks(children: Token[]): Token[] {
  const out: Token[] = [];
  let inLink = 0;
  for (const t of children) {
    if (t.type === "link_open") inLink++;
    if (t.type === "link_close") inLink--;
    const src = t.type === "image" ? String(t.attrGet("src") ?? "") : "";
    if (!/^(https?:)?\/\//i.test(src)) {
      out.push(t);
      continue;
    }
    const text = tokenLike(t, "text", "", 0);
    text.content = `${t.content || "image"} (image on another site)`;
    if (inLink > 0) {
      out.push(text);
      continue;
    }
    const open = tokenLike(t, "link_open", "a", 1);
    open.attrs = [["href", src], ["class", "external-image"], [
      "rel",
      "nofollow noopener noreferrer",
    ]];
    out.push(open, text, tokenLike(t, "link_close", "a", -1));
  }
  return out;
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

// A fragment naming a heading (`#install`) as its id is written (`#user-content-install`); an
// empty one, one already so written, and a line anchor (`#L12`, `#L3-L5`) stay as they are.
function headingFragment(fragment: string): string {
  const name = fragment.slice(1);
  if (name === "" || name.startsWith(HEADING_ID_PREFIX) || /^L\d+(?:-L\d+)?$/.test(name)) {
    return fragment;
  }
  return `#${HEADING_ID_PREFIX}${name}`;
}
