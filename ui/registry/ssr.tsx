/**
 * Server rendering of the registry browser (preact-render-to-string): the same App the browser
 * runs, rendered at a URL with the API answers it needs (preload.ts), to HTML the browser then
 * hydrates. The server collects the answers from the registry's domain, keyed by the URLs api.ts
 * names, so the browser's first render finds them under the URLs it would fetch.
 */
import { renderToString } from "preact-render-to-string";
import { clearPreloaded, type Preloaded, setPreloaded } from "../common/preload.ts";
import { App } from "./app.tsx";
import { ApiPage, MarkdownPage, type OpenApiDoc } from "./docs.tsx";

export { readLogQuery } from "./log_page.tsx";
export { readQuery } from "./landing.tsx";
export type { OpenApiDoc } from "./docs.tsx";

/** The HTML of the app at `path` + `search` (`?q=...` or ""), rendered from `data`. */
export function renderRegistry(
  path: string,
  search: string,
  data: Record<string, Preloaded>,
): string {
  setPreloaded(data);
  try {
    return renderToString(<App url={{ path, search }} />);
  } finally {
    clearPreloaded();
  }
}

/** The HTML of documentation page `current` (a path) showing `html` (rendered Markdown). */
export function renderMarkdownPage(current: string, html: string): string {
  return renderToString(<MarkdownPage current={current} html={html} />);
}

/** The HTML of the API operations page of `doc`; `markdown` renders inline Markdown. */
export function renderApiPage(doc: OpenApiDoc, markdown: (text: string) => string): string {
  return renderToString(<ApiPage doc={doc} markdown={markdown} />);
}
