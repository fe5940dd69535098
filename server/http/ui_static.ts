/**
 * Serving the embedded UI (ui/generated/assets.ts) for both the hosting app and the registry app:
 * HTML shells with a strict CSP and no-cache, content-hashed assets cached for a year.
 */
import type { Context, Env, Hono } from "hono";
import { UI_ASSETS, UI_PAGES, UI_STYLE_HASHES } from "../../ui/generated/assets.ts";

/**
 * Content-Security-Policy for every UI page: nothing from outside this origin, nothing inline but
 * the stylesheets the build wrote into the shells, each allowed by its hash (no `unsafe-inline`).
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  ["style-src 'self'", ...UI_STYLE_HASHES].join(" "),
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

/**
 * The security headers of `app`'s responses. The hosting origin (the admin dashboard, which holds
 * an account's token, and the repository browser) also isolates its windows from any opener
 * (COOP `same-origin`). The registry's public pages do not: they hold no credential and nothing
 * of the visitor's to protect, and the isolation costs each first visit a browsing-context switch,
 * ~25 ms of first paint (docs/decisions/ui.md, "No opener isolation on the registry's pages").
 */
function securityHeaders(app: UiApp): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Security-Policy": UI_CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };
  if (app !== "registry") headers["Cross-Origin-Opener-Policy"] = "same-origin";
  return headers;
}

/** Each app's security headers, and the headers of its pages, made once. */
const SECURITY_HEADERS = {} as Record<UiApp, Readonly<Record<string, string>>>;
const PAGE_HEADERS = {} as Record<UiApp, Readonly<Record<string, string>>>;
for (const app of Object.keys(UI_PAGES) as UiApp[]) {
  SECURITY_HEADERS[app] = securityHeaders(app);
  PAGE_HEADERS[app] = {
    ...SECURITY_HEADERS[app],
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-cache",
  };
}

/**
 * Headers of every page of `app` (its shell, a server-rendered page, a browser page): the security
 * headers, HTML, and no-cache (the browser must revalidate so new asset names are picked up).
 */
export function htmlPageHeaders(app: UiApp): Readonly<Record<string, string>> {
  return PAGE_HEADERS[app];
}

/** The HTML shell of `app`. */
export function uiPage(app: UiApp): Response {
  return new Response(UI_PAGES[app], { headers: htmlPageHeaders(app) });
}

/**
 * Serves `/assets/<file>` of `app`'s origin from the embedded bundle; 304 on a matching ETag, JSON
 * 404 if unknown.
 */
export function uiAsset(c: Context, app: UiApp): Response {
  const path = new URL(c.req.url).pathname;
  const asset = Object.hasOwn(UI_ASSETS, path) ? UI_ASSETS[path] : undefined;
  if (!asset) return c.json({ error: `no asset ${path}` }, 404);
  const headers = {
    ...SECURITY_HEADERS[app],
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

/** Whether the client asks for an HTML page (a browser navigating): its Accept names text/html. */
export function wantsHtml(c: Context): boolean {
  return /\btext\/html\b/i.test(c.req.header("accept") ?? "");
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );
}

/** What a 404 page says: its heading, what was not found, and the way back. */
export interface NotFoundText {
  /** The h1: "Page not found", "Bot not found". */
  title: string;
  /** The sentence before the thing looked for. */
  lead: string;
  /** The path or id looked for (user input: escaped and isolated with `<bdi>`). */
  what: string;
  back: { href: string; label: string };
}

/**
 * A 404 page for browsers: `app`'s stylesheet with the frame and a page header written into the
 * HTML, and no script (it needs none: a heading, what was not found, and a link back), so it reads
 * the same with JavaScript off. API clients get JSON 404s instead (see `notFound`).
 */
export function notFoundPage(app: UiApp, text: NotFoundText): Response {
  const tag = app === "admin" ? "Admin" : "Registry";
  const home = app === "admin" ? "/admin" : "/";
  const body = `<div id="app"><header class="topbar"><div class="topbar-inner container">` +
    `<a href="${home}" class="brand"><span class="brand-name">Signet</span>` +
    `<span class="brand-tag">${tag}</span></a></div></header>` +
    `<main id="main" class="container main"><div class="page-header not-found"><div>` +
    `<h1>${escapeHtml(text.title)}</h1><p class="page-description">${escapeHtml(text.lead)} ` +
    `<code><bdi>${escapeHtml(text.what)}</bdi></code>.</p>` +
    `<p><a class="btn btn-secondary" href="${escapeHtml(text.back.href)}">` +
    `${escapeHtml(text.back.label)}</a></p></div></div></main></div>`;
  const html = UI_PAGES[app]
    .replace(/<script type="module"[^>]*><\/script>\n?/, "")
    .replace(/<noscript>.*<\/noscript>\n?/, "")
    .replace(
      /<title>[^<]*<\/title>/,
      `<title>${escapeHtml(text.title)} · Signet ${tag.toLowerCase()}</title>`,
    )
    .replace('<div id="app"></div>', body);
  return new Response(html, { status: 404, headers: htmlPageHeaders(app) });
}

/**
 * The answer for a path nothing serves: the HTML 404 page of `app` to a browser (Accept names
 * text/html) outside the API prefixes `apiPrefixes`, else JSON `{"error": message}`.
 */
export function notFound(
  c: Context,
  app: UiApp,
  apiPrefixes: string[],
  message: string,
): Response {
  const path = c.req.path;
  const api = apiPrefixes.some((p) => path === p || path.startsWith(`${p}/`));
  if (api || !wantsHtml(c) || (c.req.method !== "GET" && c.req.method !== "HEAD")) {
    return c.json({ error: message }, 404);
  }
  return notFoundPage(app, {
    title: "Page not found",
    lead: "There is nothing at",
    what: path,
    back: app === "admin"
      ? { href: "/admin", label: "Go to the dashboard" }
      : { href: "/", label: "Browse bots" },
  });
}

/**
 * Mounts the embedded asset files (`/assets/:file`, one segment, so `<owner>/<repo>.git/...` paths
 * never match) and `app`'s page at each of `pagePaths` on `router`.
 */
export function mountUi<E extends Env>(router: Hono<E>, app: UiApp, pagePaths: string[]): void {
  router.get("/assets/:file", (c) => uiAsset(c, app));
  for (const path of pagePaths) router.get(path, () => uiPage(app));
}
