/**
 * The admin's paged lists: the page's state lives in the URL query (`sort`, `order`, `q`,
 * `after`/`before`, plus a list's own filters), so next, previous, reload and a shared link all
 * show the same page. The server pages (server/domain/listing.ts); this shows "1–50 of 1,234",
 * the sort select, previous/next, and the table inside a box that scrolls sideways on its own.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import {
  Empty,
  errorMessage,
  ErrorNotice,
  Link,
  Loading,
  SearchInput,
} from "../common/components.tsx";
import { location, navigate } from "../common/router.ts";
import { DataTable, type TableSpec } from "../common/table.tsx";
import { adminApi } from "./session.ts";
import type { PageInfo } from "./types.ts";

/** The query parameters that select a page; others (`q`, filters) select the listing. */
const CURSOR_PARAMS = ["after", "before"];

/** One sort choice of a list's select: its label and the `sort`/`order` it sends. */
export interface SortChoice {
  label: string;
  sort: string;
  order: "asc" | "desc";
}

/** Newest and oldest first, by `created`. */
export const AGE_SORTS: SortChoice[] = [
  { label: "Newest first", sort: "created", order: "desc" },
  { label: "Oldest first", sort: "created", order: "asc" },
];

/** `label` A–Z and Z–A by `name`, then newest and oldest first. */
export function nameAndAgeSorts(label: string): SortChoice[] {
  return [
    { label: `${label} (A–Z)`, sort: "name", order: "asc" },
    { label: `${label} (Z–A)`, sort: "name", order: "desc" },
    ...AGE_SORTS,
  ];
}

/** The current URL query. */
export function useQuery(): URLSearchParams {
  return new URLSearchParams(location.value.search);
}

/** The current path with `changes` applied to its query (null removes); a new listing when not only a cursor changes. */
export function hrefWith(changes: Record<string, string | null>): string {
  const params = new URLSearchParams(location.value.search);
  const cursorOnly = Object.keys(changes).every((k) => CURSOR_PARAMS.includes(k));
  if (!cursorOnly) { for (const k of CURSOR_PARAMS) params.delete(k); }
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === "") params.delete(k);
    else params.set(k, v);
  }
  const query = params.toString();
  return `${location.value.path}${query ? `?${query}` : ""}`;
}

/** A page being loaded: the last one stays shown (`data`) until the next arrives. */
export interface PageState<R> {
  status: "loading" | "ready" | "error";
  data?: R;
  error?: string;
}

/**
 * Loads the page of `/api/admin<path>` the URL's query names (the query goes to the API as it
 * is); `reload` fetches it again.
 */
export function usePage<R extends PageInfo>(path: string): [PageState<R>, () => void] {
  const search = location.value.search;
  const [state, setState] = useState<PageState<R>>({ status: "loading" });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ status: "loading", data: s.data }));
    adminApi<R>(`${path}${search}`).then(
      (data) => live && setState({ status: "ready", data }),
      (err) => live && setState({ status: "error", error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [path, search, tick]);
  return [state, () => setTick((t) => t + 1)];
}

const count = (n: number) => n.toLocaleString("en-US");

/** "1–50 of 1,234" and the previous/next links. */
export function Pager(
  { page, rows, noun, id }: { page: PageInfo; rows: number; noun: string; id: string },
) {
  const from = rows ? page.offset + 1 : page.offset;
  const to = page.offset + rows;
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`} id={`${id}-pager`}>
      <p class="pager-range" aria-live="polite">
        {page.total === 0
          ? `No ${noun}`
          : rows === 0
          ? `None here of ${count(page.total)} ${noun}`
          : `${count(from)}–${count(to)} of ${count(page.total)} ${noun}`}
      </p>
      <div class="pager-links">
        {page.prev
          ? (
            <Link
              class="btn btn-secondary btn-sm"
              href={hrefWith({ before: page.prev, after: null })}
            >
              <span aria-hidden="true">←</span> Previous
            </Link>
          )
          : rows === 0 && page.total > 0
          ? (
            <Link class="btn btn-secondary btn-sm" href={hrefWith({ before: null, after: null })}>
              First page
            </Link>
          )
          : <span class="btn btn-secondary btn-sm" aria-disabled="true">Previous</span>}
        {page.next
          ? (
            <Link
              class="btn btn-secondary btn-sm"
              href={hrefWith({ after: page.next, before: null })}
            >
              Next <span aria-hidden="true">→</span>
            </Link>
          )
          : <span class="btn btn-secondary btn-sm" aria-disabled="true">Next</span>}
      </div>
    </nav>
  );
}

/** The select of a list's sorts; choosing one starts again from the first page. */
export function SortSelect(
  { choices, page, id }: { choices: SortChoice[]; page: PageInfo | undefined; id: string },
) {
  const query = useQuery();
  const sort = query.get("sort") ?? page?.sort ?? choices[0].sort;
  const order = query.get("order") ?? page?.order ?? choices[0].order;
  const current = choices.findIndex((c) => c.sort === sort && c.order === order);
  return (
    <label class="sort-select">
      <span class="muted">Sort</span>
      <select
        id={`${id}-sort`}
        class="select"
        value={String(Math.max(current, 0))}
        onChange={(e) => {
          const c = choices[Number((e.currentTarget as HTMLSelectElement).value)];
          navigate(hrefWith({ sort: c.sort, order: c.order }));
        }}
      >
        {choices.map((c, i) => <option key={i} value={String(i)}>{c.label}</option>)}
      </select>
    </label>
  );
}

/**
 * A flush card with a paged list: its head (title, `head` controls), loading or error state,
 * `empty` when the listing has nothing, `filteredEmpty` when a filter matches nothing, the table
 * in a box of its own width, and the pager.
 */
export function PagedCard<T>(
  { id, title, noun, resource, reload, rows, head, empty, filteredEmpty, table, children }: {
    id: string;
    title: string;
    noun: string;
    resource: PageState<PageInfo>;
    reload: () => void;
    rows: T[];
    head?: ComponentChildren;
    empty: ComponentChildren;
    filteredEmpty: ComponentChildren;
    table: TableSpec<T>;
    children?: ComponentChildren;
  },
) {
  const page = resource.data;
  const filtered = [...useQuery().keys()].some((k) =>
    !["sort", "order", "limit", ...CURSOR_PARAMS].includes(k)
  );
  return (
    <section
      class="card card-flush paged"
      aria-labelledby={`${id}-title`}
      aria-busy={resource.status === "loading"}
    >
      <div class="card-head card-head-padded toolbar">
        <h2 id={`${id}-title`} class="visually-hidden">{title}</h2>
        {head}
      </div>
      {resource.status === "loading" && !page && <Loading label={`Loading ${noun}…`} />}
      {resource.status === "error" && (
        <div class="card-pad">
          <ErrorNotice
            title={`Could not load ${noun}`}
            message={resource.error ?? ""}
            onRetry={reload}
          />
          <p class="pager-reset">
            <Link href={hrefWith({ before: null, after: null })}>Go to the first page</Link>
          </p>
        </div>
      )}
      {page && page.total === 0 && (filtered ? filteredEmpty : empty)}
      {children}
      {rows.length > 0 && (
        <div
          class="table-scroll"
          tabIndex={0}
          role="region"
          aria-label={`${title}, scrolls sideways`}
        >
          <DataTable {...table} rows={rows} />
        </div>
      )}
      {page && page.total > 0 && <Pager page={page} rows={rows.length} noun={noun} id={id} />}
    </section>
  );
}

/**
 * An admin list: a `PagedCard` titled "All <noun>" whose table is `<id>-table` and whose head holds the `search` filter (the `q` query) when given,
 * the list's own `filters`, the sort select and a `summary`; a filter matching nothing says so.
 */
export function AdminList<T>(
  { sorts, search, filters, summary, table, ...card }:
    & Omit<Parameters<typeof PagedCard<T>>[0], "title" | "head" | "filteredEmpty" | "table">
    & {
      table: Omit<TableSpec<T>, "id">;
      sorts: SortChoice[];
      search?: { placeholder: string; label: string };
      filters?: ComponentChildren;
      summary?: ComponentChildren;
    },
) {
  const q = useQuery().get("q") ?? "";
  return (
    <PagedCard
      {...card}
      title={`All ${card.noun}`}
      table={{ ...table, id: `${card.id}-table` }}
      head={
        <>
          {search && (
            <SearchInput
              {...search}
              value={q}
              onInput={(v) => navigate(hrefWith({ q: v }), true)}
            />
          )}
          {filters}
          <SortSelect id={card.id} choices={sorts} page={card.resource.data} />
          {summary}
        </>
      }
      filteredEmpty={<NoMatch what={card.noun} />}
    />
  );
}

/** The empty state of a filter that matched nothing, with a way back to the whole list. */
export function NoMatch({ what }: { what: string }) {
  return (
    <Empty title={`No ${what} match`}>
      <Link class="btn btn-secondary btn-sm" href={location.value.path}>Clear filter</Link>
    </Empty>
  );
}
