/**
 * A tiny History-API router: the current location as a signal, and navigation helpers. On the
 * server (no `globalThis.location`) it starts at `/`; server rendering passes the URL to the app
 * as a prop instead of reading this signal (a long-lived signal read in a render would keep every
 * server-rendered component subscribed to it).
 */
import { signal } from "@preact/signals";
import { clearPreloaded } from "./preload.ts";

/** The current path and query, updated on navigation and on back/forward. */
export const location = signal({
  path: globalThis.location?.pathname ?? "/",
  search: globalThis.location?.search ?? "",
});

if (globalThis.location) {
  globalThis.addEventListener("popstate", () => {
    clearPreloaded();
    location.value = { path: globalThis.location.pathname, search: globalThis.location.search };
  });
}

/** Goes to `href` (same origin) without reloading; `replace` rewrites the current entry. */
export function navigate(href: string, replace = false): void {
  const url = new URL(href, globalThis.location.href);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  clearPreloaded();
  location.value = { path: url.pathname, search: url.search };
  if (!replace) globalThis.scrollTo(0, 0);
}

/** A left click with no modifier key (others open new tabs or windows, as the browser does). */
export function isPlainClick(e: MouseEvent): boolean {
  return e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;
}

/** Click handler for in-app links: plain left clicks navigate in place, others behave natively. */
export function onLinkClick(e: MouseEvent): void {
  if (e.defaultPrevented || !isPlainClick(e)) return;
  const a = e.currentTarget as HTMLAnchorElement;
  if (a.target || a.origin !== globalThis.location.origin) return;
  e.preventDefault();
  navigate(a.href);
}
