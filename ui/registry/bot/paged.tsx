/**
 * A list the bot page loads page by page (attestations, the audit log, the bots it controls), and
 * how it shows. How much of it shows is in the page URL (more.ts): "Load more" is a link the
 * server renders, followed in place when script runs.
 */
import type { ComponentChildren } from "preact";
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { errorMessage, ErrorNotice, Link, Loading } from "../../common/components.tsx";
import { preloaded } from "../../common/preload.ts";
import { isPlainClick, navigate } from "../../common/router.ts";
import { BOT_LIST_PAGE } from "../api.ts";
import {
  itemAnchor,
  type ListView,
  type MoreList,
  nextView,
  readListView,
  viewHref,
  viewReads,
} from "./more.ts";

/** One page: its items and the cursor of the next, null after the last. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** Where a list's pages come from: the API, and the answers the server embedded in the page. */
export interface PageSource<T> {
  /** Up to `limit` items from `cursor` (the list's start without one). */
  fetch(cursor: string | undefined, limit: number): Promise<Page<T>>;
  /** The same read, if the server embedded its answer in the page (an error: its message). */
  preloaded(cursor: string | undefined, limit: number): Page<T> | string | undefined;
}

/** The answer the server embedded for `url`, as a page (`page` converts it), or its error. */
export function embedded<A, T>(
  url: string,
  page: (answer: A) => Page<T>,
): Page<T> | string | undefined {
  const answer = preloaded(url);
  if (!answer) return undefined;
  return "data" in answer ? page(answer.data as A) : answer.error;
}

/** A paged list's items so far, its next cursor, and `loading`, `more`, `ready` or an error. */
export interface Paged<T> {
  items: T[];
  next: string | null;
  state: string;
  /** Loads the view the URL names again (Retry). */
  reload: () => Promise<void>;
  /** Appends the next page in place, then replaces the page URL with `href` (the link's). */
  more: (href: string) => Promise<void>;
  /** The view's link with one page more, or null at the list's end. */
  moreHref: string | null;
  /** With a view that does not start at the list's start: the link to the start. */
  startHref: string | null;
  /** The id of the item at `index`, when it begins a page (where "Load more" lands). */
  anchor: (index: number) => string | undefined;
}

/**
 * The page of `view` from the server's embedded answers, the error of one, or undefined if one is
 * missing.
 */
function embeddedView<T>(source: PageSource<T>, view: ListView): Page<T> | string | undefined {
  const items: T[] = [];
  let next: string | null = null;
  const reads = viewReads(view);
  for (let r = reads.next(); !r.done;) {
    const page = source.preloaded(r.value.cursor, r.value.limit);
    if (typeof page !== "object") return page;
    items.push(...page.items);
    next = page.next;
    r = reads.next({ count: page.items.length, next });
  }
  return { items, next };
}

/**
 * How many items list `list` shows at first, when the server embedded them for the view the page
 * URL's query `search` names (undefined otherwise, or for a view from a later cursor).
 */
export function embeddedCount<T>(
  source: PageSource<T>,
  list: MoreList,
  search: string,
): number | undefined {
  const view = readListView(search, list);
  const page = view.from ? undefined : embeddedView(source, view);
  return typeof page === "object" ? page.items.length : undefined;
}

/** The items of `view`, fetched. */
async function fetchView<T>(source: PageSource<T>, view: ListView): Promise<Page<T>> {
  const items: T[] = [];
  let next: string | null = null;
  const reads = viewReads(view);
  for (let r = reads.next(); !r.done;) {
    const page = await source.fetch(r.value.cursor, r.value.limit);
    items.push(...page.items);
    next = page.next;
    r = reads.next({ count: page.items.length, next });
  }
  return { items, next };
}

/**
 * List `list` of the bot page at `path` + `search`: the view the URL names, shown at once when the
 * server embedded it and fetched otherwise, and fetched again whenever `deps` or the view change
 * (not when the change is this list's own "Load more").
 */
export function usePaged<T>(
  source: PageSource<T>,
  where: { list: MoreList; path: string; search: string },
  deps: unknown[],
  onLoaded: (items: T[]) => void = () => {},
): Paged<T> {
  const { list, path, search } = where;
  const view = readListView(search, list);
  const keyOf = (v: ListView) => JSON.stringify([...deps, v.from, v.pages]);
  const key = keyOf(view);
  const first = useRef<Page<T> | string | undefined | null>(null);
  if (first.current === null) first.current = embeddedView(source, view);
  const initial = first.current;
  const items = useSignal<T[]>(typeof initial === "object" ? initial.items : []);
  const next = useSignal<string | null>(typeof initial === "object" ? initial.next : null);
  // An embedded error shows as the error (with Retry), as a failed fetch would.
  const state = useSignal<string>(
    initial === undefined ? "loading" : typeof initial === "string" ? initial : "ready",
  );
  // The view the items show (so the URL change of its own "Load more" loads nothing).
  const shown = useRef<string | null>(initial ? key : null);
  const reload = async () => {
    state.value = "loading";
    try {
      const page = await fetchView(source, view);
      items.value = page.items;
      next.value = page.next;
      shown.current = key;
      state.value = "ready";
      onLoaded(items.value);
    } catch (err) {
      state.value = errorMessage(err);
    }
  };
  const more = async (href: string) => {
    const cursor = next.value;
    if (cursor === null || state.value === "more") return;
    state.value = "more";
    try {
      const page = await source.fetch(cursor, BOT_LIST_PAGE);
      items.value = [...items.value, ...page.items];
      next.value = page.next;
      shown.current = keyOf(nextView(view, cursor));
      state.value = "ready";
      onLoaded(items.value);
      navigate(href, true);
    } catch (err) {
      state.value = errorMessage(err);
    }
  };
  useEffect(() => {
    if (shown.current !== key) reload();
  }, [key]);
  return {
    items: items.value,
    next: next.value,
    state: state.value,
    reload,
    more,
    moreHref: next.value === null ? null : viewHref(path, search, list, nextView(view, next.value)),
    startHref: view.from ? viewHref(path, search, list, { from: "", pages: 1 }) : null,
    anchor: (index) => itemAnchor(list, index),
  };
}

/**
 * A paged list's spinner (`Loading <what>…`), error with Retry (`Could not load <what>`), `empty`
 * once loaded with nothing, the `children` list, and the Load more link while there is more.
 * Without script the link loads the page with one page more; with script it appends in place.
 */
export function PagedList<T>(
  { paged, what, empty, more = "Load more", children }: {
    paged: Paged<T>;
    what: string;
    empty: ComponentChildren;
    more?: string;
    children: ComponentChildren;
  },
) {
  const { state, items, moreHref, startHref } = paged;
  const failed = !["loading", "ready", "more"].includes(state);
  return (
    <>
      {startHref !== null && (
        <p class="muted small">
          Showing a later part of this list. <Link href={startHref}>Show from the start</Link>
        </p>
      )}
      {state === "loading" && <Loading label={`Loading ${what}…`} />}
      {failed && (
        <ErrorNotice
          title={`Could not load ${what}`}
          message={state}
          onRetry={() => paged.reload()}
        />
      )}
      {!failed && state !== "loading" && items.length === 0 && empty}
      {items.length > 0 && children}
      {moreHref !== null && state !== "loading" && (
        <a
          class="btn btn-secondary btn-sm load-more"
          href={moreHref}
          aria-disabled={state === "more" ? "true" : undefined}
          onClick={(e) => {
            if (!isPlainClick(e)) return;
            e.preventDefault();
            paged.more(moreHref);
          }}
        >
          {more}
        </a>
      )}
    </>
  );
}
