/**
 * Server-rendered pages of the embedded UI: the app's HTML shell (ui/generated/assets.ts, with its
 * content-hashed stylesheet and script) with the rendered body written into `#app`, the page's
 * title, and the data it was rendered from as a JSON data element for hydration. The headers are
 * those of every UI page (ui_static.ts): strict CSP (nothing inline runs; a
 * `<script type="application/json">` is data, never executed), no-cache.
 */
import { UI_PAGES } from "../../ui/generated/assets.ts";
import { PRELOAD_ELEMENT_ID } from "../../ui/common/preload.ts";
import { htmlPageHeaders, type UiApp } from "./ui_static.ts";

/** What a rendered page holds. */
export interface RenderedPage {
  /** The document title (plain text; escaped here). */
  title: string;
  /** The rendered HTML of the app's root (trusted: the renderer escaped user text). */
  body: string;
  /**
   * The data to hydrate with (JSON-serialised, `<` escaped), or undefined for a page with no
   * script at all (a 404, a document): it reads the same with JavaScript off and runs nothing.
   */
  data?: unknown;
  /** HTTP status; 200 unless given. */
  status?: number;
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );
}

/**
 * JSON for a `<script type="application/json">` element: `<` becomes `\u003c`, so no `</script>` or
 * `<!--` inside a string can end or change the element; JSON.parse reads it back unchanged.
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** The HTML document of `page` in `app`'s shell. */
export function renderedHtml(app: UiApp, page: RenderedPage): string {
  const shell = UI_PAGES[app];
  const data = page.data === undefined
    ? ""
    : `\n<script type="application/json" id="${PRELOAD_ELEMENT_ID}">${
      jsonForHtml(page.data)
    }</script>`;
  let html = shell
    .replace(/<noscript>.*<\/noscript>\n?/, "")
    .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
    .replace('<div id="app"></div>', () => `<div id="app">${page.body}</div>${data}`);
  if (page.data === undefined) html = html.replace(/<script type="module"[^>]*><\/script>\n?/, "");
  return html;
}

/** The Response of `page` in `app`'s shell, with the UI's security headers. */
export function renderedPage(app: UiApp, page: RenderedPage): Response {
  return htmlPage(app, renderedHtml(app, page), page.status ?? 200);
}

/** A page of `app`: the HTML document `html` with the app's security headers. */
export function htmlPage(app: UiApp, html: string, status = 200): Response {
  return new Response(html, { status, headers: htmlPageHeaders(app) });
}
