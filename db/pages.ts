/**
 * Keyset pagination of the stores' listings (admin lists, `GET /api/repos`): a page is the rows
 * strictly after (or before) a position in the listing's order, with the total of the filtered
 * listing and the page's offset in it. A position (`Cursor`) is the sort key of one row and a
 * unique tie-break, so a page costs an index walk plus two counts, never a scan of every earlier
 * row's details. The SQL is built here once for both engines; each engine runs it.
 */

/** The direction of a listing. */
export type SortOrder = "asc" | "desc";

/** A position in a listing: one row's sort key and its unique tie-break. */
export type Cursor = readonly [string, string | number];

/** Which page of a listing: the rows after `after`, or before `before`, or the first ones. */
export interface PageQuery {
  order: SortOrder;
  /** The rows strictly after this position, in the listing's order. */
  after?: Cursor;
  /** The rows strictly before this position (the page that ends just before it). */
  before?: Cursor;
  /** At most this many rows. */
  limit: number;
}

/** One page of a listing. */
export interface Page<T> {
  rows: T[];
  /** Rows in the whole (filtered) listing. */
  total: number;
  /** Rows of the listing before this page's first row. */
  offset: number;
  /** The position to ask `after` for the next page; null on the last page. */
  next: Cursor | null;
  /** The position to ask `before` for the previous page; null on the first page. */
  prev: Cursor | null;
}

/** Placeholder style: SQLite's `?NNN` or PostgreSQL's `$n`. */
export type ParamStyle = "?" | "$";

/** Collects a statement's parameter values and names their placeholders. */
export class Params {
  readonly values: unknown[] = [];
  constructor(readonly style: ParamStyle) {}
  /** The placeholder of `value`, appended to the values. */
  add(value: unknown): string {
    this.values.push(value);
    return `${this.style}${this.values.length}`;
  }
}

/** One listing to page through. */
export interface Listing {
  style: ParamStyle;
  /** The selected columns (without SELECT). */
  columns: string;
  /** `FROM …` with its joins. */
  from: string;
  /** The filter's conditions (ANDed), given the statement's parameters. */
  where: (p: Params) => string[];
  /** SQL expressions of the sort key and its unique tie-break. */
  keys: readonly [string, string];
}

/** A statement and its parameter values. */
export interface Statement {
  sql: string;
  values: unknown[];
}

/** The statements of one page and how to assemble it; an engine runs them in order. */
export interface PagePlan {
  /** `COUNT(*) AS n` of the filtered listing. */
  count: Statement;
  /** The page's rows, each with its key as `page_k1`, `page_k2`. */
  rows: Statement;
  /**
   * `COUNT(*) AS n` of the rows before the first of `read` (the page's rows as read; null: the
   * offset is known without asking).
   */
  offset(read: Record<string, unknown>[]): Statement | null;
  /** The page, from the rows as read (keys stripped), the total and the offset. */
  finish<T>(rows: Record<string, unknown>[], total: number, offset: number | null): Page<T>;
}

function compare(op: string, keys: readonly [string, string], at: Cursor, p: Params): string {
  return `(${keys[0]}, ${keys[1]}) ${op} (${p.add(at[0])}, ${p.add(at[1])})`;
}

function whereSql(conds: string[]): string {
  return conds.length ? ` WHERE ${conds.join(" AND ")}` : "";
}

/** Plans the page `q` of `listing`. */
export function planPage(listing: Listing, q: PageQuery): PagePlan {
  const [k1, k2] = listing.keys;
  const asc = q.order === "asc";
  const backwards = q.before !== undefined;
  const countP = new Params(listing.style);
  const count = {
    sql: `SELECT COUNT(*) AS n ${listing.from}${whereSql(listing.where(countP))}`,
    values: countP.values,
  };
  const rowsP = new Params(listing.style);
  const conds = listing.where(rowsP);
  if (q.after) conds.push(compare(asc ? ">" : "<", listing.keys, q.after, rowsP));
  if (q.before) conds.push(compare(asc ? "<" : ">", listing.keys, q.before, rowsP));
  const dir = asc !== backwards ? "ASC" : "DESC";
  const rows = {
    sql: `SELECT ${listing.columns}, ${k1} AS page_k1, ${k2} AS page_k2 ${listing.from}${
      whereSql(conds)
    } ORDER BY ${k1} ${dir}, ${k2} ${dir} LIMIT ${rowsP.add(q.limit)}`,
    values: rowsP.values,
  };
  return {
    count,
    rows,
    offset(read) {
      const first = firstKey(read, q);
      if (first === null || (!q.after && !q.before)) return null;
      const p = new Params(listing.style);
      const c = listing.where(p);
      c.push(compare(asc ? "<" : ">", listing.keys, first, p));
      return { sql: `SELECT COUNT(*) AS n ${listing.from}${whereSql(c)}`, values: p.values };
    },
    finish<T>(read: Record<string, unknown>[], total: number, offset: number | null): Page<T> {
      const ordered = backwards ? read.slice().reverse() : read;
      const keys: Cursor[] = [];
      const rows = ordered.map((r) => {
        const { page_k1, page_k2, ...row } = r;
        keys.push([page_k1 as string, page_k2 as string | number]);
        return row as T;
      });
      const at = offset ?? (rows.length ? 0 : q.after ? total : 0);
      return {
        rows,
        total,
        offset: at,
        next: rows.length > 0 && at + rows.length < total ? keys[keys.length - 1] : null,
        prev: rows.length > 0 && at > 0 ? keys[0] : null,
      };
    },
  };
}

/** The first row's key of rows as read for `q` (the page's first in listing order). */
function firstKey(read: Record<string, unknown>[], q: PageQuery): Cursor | null {
  if (read.length === 0) return null;
  const r = q.before !== undefined ? read[read.length - 1] : read[0];
  return [r.page_k1 as string, r.page_k2 as string | number];
}

/** Conditions: `text` (an SQL expression, lowercase) contains every one of `words` (lowercase). */
export function containsAll(text: string, words: readonly string[], p: Params): string[] {
  const fn = p.style === "?" ? "instr" : "strpos";
  return words.map((w) => `${fn}(${text}, ${p.add(w)}) > 0`);
}
