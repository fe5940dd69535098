/**
 * How much of each paged list the bot page shows, as its URL says: `<list>_pages` (how many pages
 * of 20, from the list's start) and, past MAX_PAGES, `<list>_from` (the cursor the list starts
 * at instead). "Load more" is a link to the same page with one page more, so it works without
 * script (the server renders that many) and a reload, a shared link, back and forward show what
 * the URL says; with script the link is followed in place (the next page appended, the URL
 * replaced). The server (server/registry/http/pages.ts) and the browser read a view the same
 * way, by `viewReads`, so the answers the server embeds are found under the URLs the browser
 * would fetch.
 */

import { BOT_LIST_PAGE } from "../api.ts";

/** The lists of the bot page that load more, as the URL names them. */
export type MoreList = "received" | "issued" | "log" | "controls";

/** Pages a list shows at most; the "Load more" after them starts the list at the next cursor. */
export const MORE_MAX_PAGES = 10;
/** The most items one read asks for (the APIs' largest `limit`). */
export const MORE_MAX_READ = 100;

/** Where a list starts (its cursor; "" for its beginning) and how many pages of it show. */
export interface ListView {
  from: string;
  pages: number;
}

/** The view of `list` in the page URL's query `search`; anything unreadable is the first page. */
export function readListView(search: string, list: MoreList): ListView {
  const p = new URLSearchParams(search);
  const text = p.get(`${list}_pages`) ?? "";
  const n = /^\d{1,15}$/.test(text) ? Number(text) : 1;
  // Cursors are digits or base64url; anything else starts at the beginning.
  const from = p.get(`${list}_from`) ?? "";
  return {
    from: /^[A-Za-z0-9_-]{1,200}$/.test(from) ? from : "",
    pages: Math.min(Math.max(n, 1), MORE_MAX_PAGES),
  };
}

/** The view after one "Load more" of `view`, whose last page's next cursor is `next`. */
export function nextView(view: ListView, next: string): ListView {
  return view.pages < MORE_MAX_PAGES
    ? { from: view.from, pages: view.pages + 1 }
    : { from: next, pages: 1 };
}

/** The id of the first item of page `page` (1-based) of `list`'s view: where a link lands. */
export function pageAnchor(list: MoreList, page: number): string {
  return `${list}-p${page}`;
}

/** The anchor on the item at `index` of a view, if it begins a page. */
export function itemAnchor(list: MoreList, index: number): string | undefined {
  return index % BOT_LIST_PAGE === 0 ? pageAnchor(list, index / BOT_LIST_PAGE + 1) : undefined;
}

/**
 * The bot page at `path` with `list` showing `view` (the other lists as `search` has them), at the
 * first item of the view's last page; the first page of the list's start is the plain page.
 */
export function viewHref(path: string, search: string, list: MoreList, view: ListView): string {
  const p = new URLSearchParams(search);
  p.delete(`${list}_pages`);
  p.delete(`${list}_from`);
  if (view.from) p.set(`${list}_from`, view.from);
  if (view.pages > 1) p.set(`${list}_pages`, String(view.pages));
  const q = p.toString();
  return `${path}${q ? `?${q}` : ""}#${pageAnchor(list, view.pages)}`;
}

/** One read of a view: from `cursor` (none: the list's start), at most `limit` items. */
export interface ViewRead {
  cursor: string | undefined;
  limit: number;
}

/** What a read found: how many items, and the cursor after them (null at the list's end). */
export interface ReadResult {
  count: number;
  next: string | null;
}

/**
 * The reads that show `view`, in order: give each one's result to `next()` to get the one after
 * (its cursor is that result's). One read while the view is at most MORE_MAX_READ items.
 */
export function* viewReads(view: ListView): Generator<ViewRead, void, ReadResult> {
  let cursor = view.from || undefined;
  let remaining = view.pages * BOT_LIST_PAGE;
  while (remaining > 0) {
    const limit = Math.min(remaining, MORE_MAX_READ);
    const { count, next } = yield { cursor, limit };
    remaining -= limit;
    if (count < limit || next === null) return;
    cursor = next;
  }
}
