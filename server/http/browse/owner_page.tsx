/**
 * `/<owner>`: a user's repositories, most recently pushed first, each with its last push; paged and
 * filtered as the explore page is (repo_listing.tsx), within the owner's repositories.
 */
import type { Signet } from "../../context.ts";
import type { Rendered } from "./frame.tsx";
import { renderRepoListing } from "./repo_listing.tsx";

/** The owner page for the query `query` (DomainError not_found when there is no such user). */
export function renderOwner(ctx: Signet, owner: string, query: URLSearchParams): Promise<Rendered> {
  return renderRepoListing(ctx, query, { path: `/${encodeURIComponent(owner)}`, owner }, {
    title: owner,
    heading: owner,
    filterLabel: `Filter ${owner}'s repositories`,
    placeholder: "name",
  });
}
