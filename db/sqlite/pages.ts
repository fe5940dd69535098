/** Runs a keyset page's statements (db/pages.ts) on SQLite, for every store's listing. */
import type { Database } from "./database.ts";
import { type Listing, type Page, type PageQuery, planPage, type Statement } from "../pages.ts";

/** The page `q` of `listing`, read on `db`. */
export function readPage<T>(db: Database, listing: Listing, q: PageQuery): Page<T> {
  const plan = planPage(listing, q);
  const count = (s: Statement) =>
    Number((db.prepare(s.sql).get(...(s.values as never[])) as { n: number }).n);
  const total = count(plan.count);
  const read = db.prepare(plan.rows.sql).all(...(plan.rows.values as never[])) as Record<
    string,
    unknown
  >[];
  const offset = plan.offset(read);
  return plan.finish<T>(read, total, offset === null ? null : count(offset));
}
