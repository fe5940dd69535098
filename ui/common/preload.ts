/**
 * The data a server-rendered page was rendered from, keyed by the API URL the browser would fetch
 * it from. The server writes it into the page as `<script type="application/json" id="...">`
 * (data, never executed, so the CSP's `script-src 'self'` allows it); the browser reads it before
 * hydrating, so the first render shows what the server showed without fetching it again. It is
 * dropped on the first navigation: later pages fetch as before.
 */

/** One API answer: its JSON, or the error the API gave (its message and HTTP status). */
export type Preloaded = { data: unknown } | { error: string; status: number };

/** The id of the page's data element. */
export const PRELOAD_ELEMENT_ID = "page-data";

const entries = new Map<string, Preloaded>();

/** Replaces the preloaded answers (the server, before rendering a page). */
export function setPreloaded(data: Record<string, Preloaded>): void {
  entries.clear();
  for (const [url, answer] of Object.entries(data)) entries.set(url, answer);
}

/** Forgets every preloaded answer (after a server render; on the browser's first navigation). */
export function clearPreloaded(): void {
  entries.clear();
}

/** The preloaded answer of `url`, if the page came with it. */
export function preloaded(url: string): Preloaded | undefined {
  return entries.get(url);
}

/** Reads the page's data element, if any; whether there was one (then the page is hydrated). */
export function readPreloadedFromPage(): boolean {
  const el = globalThis.document?.getElementById(PRELOAD_ELEMENT_ID);
  if (!el) return false;
  try {
    setPreloaded(JSON.parse(el.textContent ?? "{}"));
  } catch {
    return false;
  }
  return true;
}
