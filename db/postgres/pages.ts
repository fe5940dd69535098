/** Runs a keyset page's statements (db/pages.ts) on PostgreSQL, for every store's listing. */
import { type Listing, type Page, type PageQuery, planPage, type Statement } from "../pages.ts";
import { rows, type Sql } from "./sql.ts";

/** The page `q` of `listing`, read over `sql`. */
export async function readPage<T>(sql: Sql, listing: Listing, q: PageQuery): Promise<Page<T>> {
  const plan = planPage(listing, q);
  const count = async (s: Statement) =>
    Number((await rows<{ n: number }>(sql, s.sql, s.values))[0].n);
  const [total, read] = await Promise.all([
    count(plan.count),
    rows<Record<string, unknown>>(sql, plan.rows.sql, plan.rows.values),
  ]);
  const offset = plan.offset(read);
  return plan.finish<T>(read, total, offset === null ? null : await count(offset));
}
