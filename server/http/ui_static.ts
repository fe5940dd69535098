/**
 * Serving the embedded UI (ui/generated/assets.ts) for both the hosting app and the registry app:
 * HTML shells with a strict CSP and no-cache, content-hashed assets cached for a year.
 */
import type { Context, Env, Hono } from "hono";
import { UI_ASSETS, UI_PAGES } from "../../ui/generated/assets.ts";

/** Content-Security-Policy for every UI page: nothing from outside this origin, nothing inline. */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Cache-Control of `/assets/*`: their names change whenever their content does. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** Which single-page app a page belongs to. */
export type UiApp = keyof typeof UI_PAGES;

const SECURITY_HEADERS = {
  "Content-Security-Policy": UI_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** The HTML shell of `app`; the browser must revalidate it so new asset names are picked up. */
export function uiPage(app: UiApp): Response {
  return new Response(UI_PAGES[app], {
    headers: {
      ...SECURITY_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
    },
  });
}

/** Serves `/assets/<file>` from the embedded bundle; 304 on a matching ETag, JSON 404 if unknown. */
export function uiAsset(c: Context): Response {
  const path = new URL(c.req.url).pathname;
  const asset = Object.hasOwn(UI_ASSETS, path) ? UI_ASSETS[path] : undefined;
  if (!asset) return c.json({ error: `no asset ${path}` }, 404);
  const headers = {
    ...SECURITY_HEADERS,
    "Content-Type": asset.type,
    "Cache-Control": IMMUTABLE,
    "ETag": asset.etag,
  };
  const inm = c.req.header("If-None-Match");
  if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === asset.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(c.req.method === "HEAD" ? null : asset.body, { headers });
}

/**
 * Mounts the embedded asset files (`/assets/:file`, one segment, so `<owner>/<repo>.git/...` paths
 * never match) and `app`'s page at each of `pagePaths` on `router`.
 */
export function mountUi<E extends Env>(router: Hono<E>, app: UiApp, pagePaths: string[]): void {
  router.get("/assets/:file", (c) => uiAsset(c));
  for (const path of pagePaths) router.get(path, () => uiPage(app));
}
