/**
 * What a rendered README may hold, and where its links go. markdown-it's output, with any raw HTML
 * the README carries, goes through sanitize-html against one allow-list: GitHub's subset for
 * READMEs (`<details>`, `<p align="center">`, `<img width>`, `<kbd>`, `<sup>`, tables, …) and the
 * markup the renderer itself writes (highlighting spans, task checkboxes, alignment classes).
 * Everything else goes: scripts and styles with their content, event handlers, `style`, forms,
 * frames, comments; a tag not allowed leaves its text. The output is balanced, so a README cannot
 * close the page's own elements. Every link and image, from Markdown or from raw HTML, goes
 * through the same rules here: paths inside the repository resolve to its pages, links to
 * headings name the prefixed ids, links elsewhere get `rel="nofollow noopener noreferrer"`, only
 * `http`, `https` and `mailto` links survive, and an image on another site becomes a link to it
 * named by its alt text (only that text inside a link): the pages' CSP loads images from Signet
 * alone, since fetching one would tell that site who reads the README (GitHub proxies them).
 * Ids and anchor names get HEADING_ID_PREFIX, so no README can take an id the page uses.
 */
import { type DefaultTreeAdapterTypes, parseFragment, serialize } from "parse5";
// @ts-types="@types/sanitize-html"
import sanitizeHtml from "sanitize-html";
import { resolveRelative } from "../../domain/browse/paths.ts";

/** Turns a path inside the repository into a URL: `link` for links, `image` for images. */
export interface LinkTargets {
  /** The directory of the Markdown file, as segments (links are relative to it). */
  dir: string[];
  link: (path: string[]) => string;
  image: (path: string[]) => string;
}

/** What every heading's id (and any id or anchor name a README writes) starts with. */
export const HEADING_ID_PREFIX = "user-content-";

/** Whether a file name is Markdown's. */
export function isMarkdown(name: string): boolean {
  return /\.(md|markdown|mdown|mkd)$/i.test(name);
}

const EXTERNAL_REL = "nofollow noopener noreferrer";

/**
 * Tags a README keeps: GitHub's list for user content (less `picture`/`source`), with the
 * renderer's task checkboxes (`input`) and footnotes (`section`).
 */
const TAGS = `
  h1 h2 h3 h4 h5 h6 p br hr b i strong em a pre code img tt div span ins del sup sub
  ol ul li table thead tbody tfoot tr td th caption blockquote dl dt dd kbd q samp var
  ruby rt rp s strike summary details figure figcaption abbr cite dfn mark small time wbr
  input section
`.trim().split(/\s+/);

const CELL = ["colspan", "rowspan", "valign", "class"];

/** Attributes each tag keeps (`*`: every tag); any other attribute goes. */
const ATTRIBUTES: Record<string, string[]> = {
  "*": ["align", "dir", "lang", "title", "id"],
  a: ["href", "name", "rel", "class"],
  div: ["class"],
  p: ["class"],
  sup: ["class"],
  hr: ["class"],
  section: ["class"],
  img: ["src", "alt", "width", "height"],
  td: CELL,
  th: CELL,
  ol: ["start", "reversed", "class"],
  li: ["class", "value"],
  details: ["open"],
  input: ["type", "checked", "disabled", "class", "aria-label"],
  time: ["datetime"],
  code: ["class"],
  span: ["class"],
  blockquote: ["cite"],
  q: ["cite"],
  del: ["cite"],
  ins: ["cite"],
};

/**
 * Classes each tag keeps: the renderer's own (highlight.js spans use `hljs-*` and `name_`; the
 * alerts, footnotes and task lists theirs).
 */
const CLASSES: Record<string, string[]> = {
  a: ["external-image", "footnote-backref"],
  span: ["hljs-*", "*_", "external-image"],
  code: ["language-*"],
  li: ["task-list-item", "footnote-item"],
  div: ["markdown-alert", "markdown-alert-*"],
  p: ["markdown-alert-title"],
  sup: ["footnote-ref"],
  hr: ["footnotes-sep"],
  section: ["footnotes"],
  ol: ["footnotes-list"],
  input: ["task-list-item-checkbox"],
  td: ["align-*"],
  th: ["align-*"],
};

/** The schemes a link elsewhere may use. */
const LINK_SCHEMES = ["http", "https", "mailto"];

/** A link elsewhere that may stay: one of LINK_SCHEMES, or `//host`. */
const LINK_ELSEWHERE = new RegExp(`^((${LINK_SCHEMES.join("|")}):|//)`, "i");

/** An image source on another site. */
const ELSEWHERE = /^(https?:)?\/\//i;

/** An empty `<div>`: the context a README's HTML is parsed in, as the page places it. */
const IN_A_DIV = parseFragment("<div></div>").childNodes[0] as DefaultTreeAdapterTypes.Element;

/**
 * `html` (markdown-it's output for a file in `targets.dir`) as a README may show it: filtered,
 * then parsed as a browser parses the children of a `<div>` (parse5, the HTML standard's
 * algorithm) and written out again. sanitize-html balances tags by its own parser's rules, which
 * differ from a browser's in places (an `<li>` start tag closes an open `<div>` in a browser, not
 * in htmlparser2); the second pass leaves exactly the tree a browser builds, so no end tag in it
 * can close an element of the page around it.
 */
export function safeReadmeHtml(html: string, targets: LinkTargets): string {
  return serialize(parseFragment(IN_A_DIV, filtered(html, targets), {}));
}

// `html` through the allow-list and the link rules (the module's doc).
function filtered(html: string, targets: LinkTargets): string {
  let linkDepth = 0; // open `<a>` elements around the tag being read
  return sanitizeHtml(html, {
    allowedTags: TAGS,
    allowedAttributes: ATTRIBUTES,
    allowedClasses: CLASSES,
    allowedSchemes: LINK_SCHEMES,
    allowedSchemesByTag: { img: [] },
    nestingLimit: 64,
    onOpenTag: (name) => {
      if (name === "a") linkDepth++;
    },
    onCloseTag: (name) => {
      if (name === "a") linkDepth--;
    },
    exclusiveFilter: (frame) => frame.tag === "input" && frame.attribs.type !== "checkbox",
    transformTags: {
      a: (_tag, attribs) => ({ tagName: "a", attribs: linkAttributes(attribs, targets) }),
      img: (_tag, attribs) => image(attribs, targets, linkDepth > 0),
      input: (_tag, attribs) => ({ tagName: "input", attribs: { ...attribs, disabled: "" } }),
      "*": (tagName, attribs) => ({ tagName, attribs: prefixedNames(attribs) }),
    },
  });
}

/** A link's attributes with its `href` resolved and `rel` set by where it goes. */
function linkAttributes(attribs: sanitizeHtml.Attributes, targets: LinkTargets) {
  const { rel: _authors, href: _written, ...out } = attribs;
  if (attribs.href === undefined) return out;
  const href = asBrowsersRead(attribs.href);
  const inside = resolveRelative(targets.dir, href);
  if (inside) {
    const last = inside.path.at(-1) ?? "";
    const fragment = isMarkdown(last) ? headingFragment(inside.fragment) : inside.fragment;
    return { ...out, href: targets.link(inside.path) + fragment };
  }
  if (href.startsWith("#")) return { ...out, href: headingFragment(href) };
  // Elsewhere: kept with its `rel` only in a scheme links may use (the sanitiser checks too).
  if (!LINK_ELSEWHERE.test(href)) return out;
  return { ...out, href, rel: EXTERNAL_REL };
}

/**
 * An image inside the repository with its source resolved; one on another site as a link to it
 * named by its alt text, or that text alone when `inLink` (no link within a link); one with any
 * other source (`data:`, another scheme, none) goes.
 */
function image(
  attribs: sanitizeHtml.Attributes,
  targets: LinkTargets,
  inLink: boolean,
): sanitizeHtml.Tag {
  const { src: written = "", ...rest } = attribs;
  const src = asBrowsersRead(written);
  if (ELSEWHERE.test(src)) {
    const text = `${attribs.alt || "image"} (image on another site)`;
    return inLink
      ? { tagName: "span", attribs: { class: "external-image" }, text }
      : { tagName: "a", attribs: { href: src, class: "external-image", rel: EXTERNAL_REL }, text };
  }
  const inside = resolveRelative(targets.dir, src);
  // A tag name not allowed: the image goes, with nothing left in its place.
  if (!inside) return { tagName: "dropped-image", attribs: {} };
  // No alt text at all: the file's name, which is what a screen reader would read out anyway.
  const alt = rest.alt ?? inside.path.at(-1) ?? "image";
  return { tagName: "img", attribs: { src: targets.image(inside.path), ...rest, alt } };
}

/** A URL attribute as a browser reads it: tabs and line breaks removed, ends trimmed. */
function asBrowsersRead(url: string): string {
  return url.replace(/[\t\n\r]/g, "").trim();
}

/** `attribs` with an `id` or an anchor's `name` under HEADING_ID_PREFIX. */
function prefixedNames(attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  const out = { ...attribs };
  for (const key of ["id", "name"]) {
    const value = out[key];
    if (value === undefined) continue;
    if (value === "") delete out[key];
    else if (!value.startsWith(HEADING_ID_PREFIX)) out[key] = HEADING_ID_PREFIX + value;
  }
  return out;
}

/**
 * A fragment naming a heading (`#install`) as its id is written (`#user-content-install`); an
 * empty one, one already so written, and a line anchor (`#L12`, `#L3-L5`) stay as they are.
 */
function headingFragment(fragment: string): string {
  const name = fragment.slice(1);
  if (name === "" || name.startsWith(HEADING_ID_PREFIX) || /^L\d+(?:-L\d+)?$/.test(name)) {
    return fragment;
  }
  return `#${HEADING_ID_PREFIX}${name}`;
}
