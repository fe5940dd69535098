/** A list the bot page loads page by page (attestations, the audit log), and how it shows. */
import type { ComponentChildren } from "preact";
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { errorMessage, ErrorNotice, Loading } from "../../common/components.tsx";

/** One page: its items and the cursor of the next, null after the last. */
export interface Page<T, C> {
  items: T[];
  next: C | null;
}

/** A paged list's items so far, its next cursor, and `loading`, `more`, `ready` or an error. */
export interface Paged<T, C> {
  items: T[];
  next: C | null;
  state: string;
  load: (cursor?: C) => Promise<void>;
}

/**
 * Loads the first page whenever `deps` change; `load(next)` appends the next one. With `initial`
 * (the first page the server rendered), it is shown at once and fetched only when `deps` change.
 */
export function usePaged<T, C>(
  fetchPage: (cursor: C | undefined) => Promise<Page<T, C>>,
  deps: unknown[],
  onLoaded: (items: T[]) => void = () => {},
  initial?: Page<T, C>,
): Paged<T, C> {
  const items = useSignal<T[]>(initial?.items ?? []);
  const next = useSignal<C | null>(initial?.next ?? null);
  const state = useSignal<string>(initial ? "ready" : "loading");
  const skipFirst = useRef(initial !== undefined);
  const load = async (cursor?: C) => {
    state.value = cursor === undefined ? "loading" : "more";
    try {
      const page = await fetchPage(cursor);
      items.value = cursor === undefined ? page.items : [...items.value, ...page.items];
      next.value = page.next;
      state.value = "ready";
      onLoaded(items.value);
    } catch (err) {
      state.value = errorMessage(err);
    }
  };
  useEffect(() => {
    if (skipFirst.current) skipFirst.current = false;
    else load();
  }, deps);
  return { items: items.value, next: next.value, state: state.value, load };
}

/**
 * A paged list's spinner (`Loading <what>…`), error with Retry (`Could not load <what>`), `empty`
 * once loaded with nothing, the `children` list, and the Load more button while there is more.
 */
export function PagedList<T, C>(
  { paged, what, empty, more = "Load more", children }: {
    paged: Paged<T, C>;
    what: string;
    empty: ComponentChildren;
    more?: string;
    children: ComponentChildren;
  },
) {
  const { state, items, next, load } = paged;
  const failed = !["loading", "ready", "more"].includes(state);
  return (
    <>
      {state === "loading" && <Loading label={`Loading ${what}…`} />}
      {failed && (
        <ErrorNotice
          title={`Could not load ${what}`}
          message={state}
          onRetry={() => load()}
        />
      )}
      {!failed && state !== "loading" && items.length === 0 && empty}
      {items.length > 0 && children}
      {next !== null && (
        <button
          type="button"
          class="btn btn-secondary btn-sm load-more"
          disabled={state === "more"}
          onClick={() => load(next)}
        >
          {more}
        </button>
      )}
    </>
  );
}
