/**
 * Markdown (READMEs, `.md` files) rendered with markdown-it: raw HTML off (`html: false`, so a
 * `<script>` in a README is shown as text), markdown-it's own link check (no `javascript:`,
 * `vbscript:`, `file:` or `data:` links), links inside the repository resolved to its pages, and
 * every link to elsewhere marked `nofollow noopener noreferrer`. Bidi controls become U+FFFD.
 */
import MarkdownIt from "markdown-it";
import { resolveRelative } from "../../domain/browse/paths.ts";
import { BIDI_CONTROLS } from "./highlight.ts";

/** Turns a path inside the repository into a URL: `link` for links, `image` for images. */
export interface LinkTargets {
  /** The directory of the Markdown file, as segments (links are relative to it). */
  dir: string[];
  link: (path: string[]) => string;
  image: (path: string[]) => string;
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Renders `source` (Markdown) to HTML, resolving repository links through `targets`. */
export function renderMarkdown(source: string, targets: LinkTargets): string {
  const env = { targets };
  const tokens = md.parse(source.replace(BIDI_CONTROLS, "\ufffd"), env);
  for (const token of tokens) {
    for (const t of token.children ?? []) {
      if (t.type === "link_open") {
        const href = String(t.attrGet("href") ?? "");
        const inside = resolveRelative(targets.dir, href);
        if (inside) {
          t.attrSet("href", targets.link(inside.path) + inside.fragment);
        } else if (!href.startsWith("#")) {
          t.attrSet("rel", "nofollow noopener noreferrer");
        }
      } else if (t.type === "image") {
        const src = String(t.attrGet("src") ?? "");
        const inside = resolveRelative(targets.dir, src);
        if (inside) t.attrSet("src", targets.image(inside.path));
      }
    }
  }
  return md.renderer.render(tokens, md.options, env);
}
