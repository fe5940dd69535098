/** The admin pages' list card and table: a titled card that loads a list, and its rows as a table. */
import type { ComponentChildren } from "preact";
import { type Resource, ResourceStatus } from "./components.tsx";

/** One column of a DataTable. */
export interface Column<T> {
  /** The header; also each cell's `data-label` (what the stacked mobile layout shows). */
  label: string;
  /** The header is for screen readers only and the cells carry no label (an actions column). */
  labelHidden?: boolean;
  /** Class of the header cell. */
  headClass?: string;
  /** Class of each cell, fixed or from its row. */
  cellClass?: string | ((row: T) => string | undefined);
  /** What a cell shows. */
  cell: (row: T) => ComponentChildren;
}

/** A table's id, columns, and how a row is keyed and found. */
export interface TableSpec<T> {
  id: string;
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
  /** `data-*` attributes of a row, by which tests and scripts find it. */
  rowData: (row: T) => Record<`data-${string}`, string>;
}

/** A table's head: one row of column headers, `labels` in order. */
export function HeadRow({ labels }: { labels: string[] }) {
  return (
    <thead>
      <tr>
        {labels.map((label) => <th key={label} scope="col">{label}</th>)}
      </tr>
    </thead>
  );
}

/** `rows` as a table with one `<tr>` each. */
export function DataTable<T>({ id, rows, columns, rowKey, rowData }: TableSpec<T> & { rows: T[] }) {
  return (
    <div class="table-wrap">
      <table class="table" id={id}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" class={c.headClass}>
                {c.labelHidden ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowData(row)}>
              {columns.map((c) => (
                <td
                  key={c.label}
                  data-label={c.labelHidden ? undefined : c.label}
                  class={typeof c.cellClass === "function" ? c.cellClass(row) : c.cellClass}
                >
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A flush card listing one resource: a head (title, then `head`), the loading spinner or error
 * with Retry, `empty` when the list has nothing in it, `children`, then the table of `rows` (all
 * of the resource unless given) when there are any.
 */
export function ListCard<T>(
  {
    id,
    title,
    titleHidden = false,
    toolbar = false,
    noun,
    resource,
    reload,
    head,
    empty,
    table,
    rows = resource.data ?? [],
    children,
  }: {
    /** Prefix of the heading's id (`<id>-title`). */
    id: string;
    title: string;
    /** The heading is for screen readers only. */
    titleHidden?: boolean;
    /** The head is a toolbar (a filter beside the title). */
    toolbar?: boolean;
    /** What is listed, for "Loading <noun>…" and "Could not load <noun>". */
    noun: string;
    resource: Resource<T[]>;
    reload: () => void;
    head?: ComponentChildren;
    empty: ComponentChildren;
    table: TableSpec<T>;
    rows?: T[];
    children?: ComponentChildren;
  },
) {
  return (
    <section class="card card-flush" aria-labelledby={`${id}-title`}>
      <div class={`card-head card-head-padded${toolbar ? " toolbar" : ""}`}>
        <h2 id={`${id}-title`} class={titleHidden ? "visually-hidden" : undefined}>{title}</h2>
        {head}
      </div>
      <ResourceStatus
        resource={resource}
        loading={`Loading ${noun}…`}
        failed={`Could not load ${noun}`}
        onRetry={reload}
        padded
      />
      {resource.data?.length === 0 && empty}
      {children}
      {rows.length > 0 && <DataTable {...table} rows={rows} />}
    </section>
  );
}
