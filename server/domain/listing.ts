/**
 * The query parameters of paged listings (admin users, repositories, invites; `GET /api/repos`),
 * validated once: `limit`, `sort`, `order`, `after`/`before` (opaque cursors from a previous
 * page) and `q` (words to match). Anything out of range is a DomainError("invalid") (HTTP 400)
 * naming what is allowed; nothing reaches a store unchecked.
 */
import type { Cursor, Page, PageQuery, SortOrder } from "../../db/pages.ts";
import { DomainError } from "../../protocol/errors.ts";

/** Rows per page when `limit` is absent, and the most a page may ask for. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
/** The longest `q`, and the most words it may hold. */
export const MAX_QUERY_LENGTH = 100;
const MAX_WORDS = 8;
const MAX_CURSOR_LENGTH = 600;

/** The sorts of one listing: each one's default order and the type of its tie-break key. */
export type SortSpec<S extends string> = Record<
  S,
  { order: SortOrder; tieBreak: "string" | "number" }
>;

/** A validated listing request. */
export interface ListParams<S extends string> extends PageQuery {
  sort: S;
  /** Lowercase words of `q`. */
  words: string[];
}

/** A page as the API returns it: cursors encoded, the sort it is in. */
export interface PageView {
  total: number;
  offset: number;
  limit: number;
  sort: string;
  order: SortOrder;
  next: string | null;
  prev: string | null;
}

function b64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(text: string): string {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(bin, (c) => c.charCodeAt(0)),
  );
}

/** The opaque form of `at` in the listing sorted by `sort`, `order`. */
export function encodeCursor(sort: string, order: SortOrder, at: Cursor): string {
  return b64url(JSON.stringify([sort, order, at[0], at[1]]));
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function decodeCursor<S extends string>(
  name: string,
  text: string,
  sort: S,
  order: SortOrder,
  spec: SortSpec<S>,
): Cursor {
  const bad = () =>
    new DomainError("invalid", `${name} is not a cursor of this listing (use next or prev)`);
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(unb64url(text));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 4) throw bad();
  const [s, o, k1, k2] = value;
  if (s !== sort || o !== order) {
    throw new DomainError(
      "invalid",
      `${name} belongs to another sort or order than ${sort} ${order}: start from the first page`,
    );
  }
  if (typeof k1 !== "string" || CONTROL.test(k1)) throw bad();
  if (spec[sort].tieBreak === "number") {
    if (typeof k2 !== "number" || !Number.isSafeInteger(k2)) throw bad();
  } else if (typeof k2 !== "string" || CONTROL.test(k2)) throw bad();
  return [k1, k2];
}

/**
 * Validates a listing's query parameters (`get` returns one, or undefined when absent) against
 * its sorts; `defaultSort` applies when `sort` is absent.
 */
export function parseListParams<S extends string>(
  get: (name: string) => string | undefined,
  spec: SortSpec<S>,
  defaultSort: S,
): ListParams<S> {
  const sorts = Object.keys(spec) as S[];
  const sortText = get("sort") ?? defaultSort;
  if (!sorts.includes(sortText as S)) {
    throw new DomainError("invalid", `sort must be one of ${sorts.join(", ")}`);
  }
  const sort = sortText as S;
  const orderText = get("order") ?? spec[sort].order;
  if (orderText !== "asc" && orderText !== "desc") {
    throw new DomainError("invalid", "order must be asc or desc");
  }
  const order: SortOrder = orderText;
  const limitText = get("limit");
  let limit = DEFAULT_PAGE_LIMIT;
  if (limitText !== undefined) {
    limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > MAX_PAGE_LIMIT) {
      throw new DomainError("invalid", `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`);
    }
  }
  const afterText = get("after");
  const beforeText = get("before");
  if (afterText !== undefined && beforeText !== undefined) {
    throw new DomainError("invalid", "give after or before, not both");
  }
  const q = get("q") ?? "";
  if (q.length > MAX_QUERY_LENGTH) {
    throw new DomainError("invalid", `q must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  if (CONTROL.test(q)) throw new DomainError("invalid", "q must not contain control characters");
  const words = [...new Set(q.toLowerCase().split(/\s+/).filter(Boolean))];
  if (words.length > MAX_WORDS) {
    throw new DomainError("invalid", `q may hold at most ${MAX_WORDS} words`);
  }
  return {
    sort,
    order,
    limit,
    words,
    after: afterText === undefined
      ? undefined
      : decodeCursor("after", afterText, sort, order, spec),
    before: beforeText === undefined
      ? undefined
      : decodeCursor("before", beforeText, sort, order, spec),
  };
}

/** The parser of one listing's query parameters: its sorts (`spec`) and the default one. */
export function listParamsParser<S extends string>(
  defaultSort: S,
  spec: SortSpec<S>,
): (get: (name: string) => string | undefined) => ListParams<S> {
  return (get) => parseListParams(get, spec, defaultSort);
}

/** The paging fields of `page`'s API reply, its cursors encoded for `params`' sort. */
export function pageView<S extends string>(
  page: Page<unknown>,
  params: ListParams<S>,
): PageView {
  const enc = (c: Cursor | null) => c === null ? null : encodeCursor(params.sort, params.order, c);
  return {
    total: page.total,
    offset: page.offset,
    limit: params.limit,
    sort: params.sort,
    order: params.order,
    next: enc(page.next),
    prev: enc(page.prev),
  };
}
