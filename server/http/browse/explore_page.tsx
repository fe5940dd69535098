/**
 * `/explore`: every repository on the server (all are public), most recently pushed first, 50 a
 * page with cursors in the URL (`after`, `before`) and an optional filter (`q`: words that
 * `owner/name` must all contain). What the logo of every repository page leads to, as a forge's
 * explore page does; the list is repo_listing.tsx's, shared with the owner page.
 */
import type { Signet } from "../../context.ts";
import { EXPLORE_PATH, type Rendered } from "./frame.tsx";
import { renderRepoListing } from "./repo_listing.tsx";

/** The explore page for the query `query` (a 400 page when its parameters are bad). */
export function renderExplore(ctx: Signet, query: URLSearchParams): Promise<Rendered> {
  return renderRepoListing(ctx, query, { path: EXPLORE_PATH }, {
    title: "Explore repositories",
    heading: "Repositories",
    filterLabel: "Filter repositories",
    placeholder: "owner or name",
  });
}
