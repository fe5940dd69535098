/**
 * The repository lists of the explore page and of an owner's page: one paged listing (the
 * domain's, server/domain/listing.ts: most recently pushed first, cursors `after`/`before` in the
 * URL, `q` words that `owner/name` must all contain), its filter form, rows and pager.
 */
import type { ComponentChildren, VNode } from "preact";
import { DomainError } from "../../../protocol/errors.ts";
import type { RepoRow } from "../../../db/repos.ts";
import { pageReposOf, parseRepoListParams } from "../../domain/repos.ts";
import { pageView } from "../../domain/listing.ts";
import type { Signet } from "../../context.ts";
import { messagePage, Name, page, type Rendered, When } from "./frame.tsx";

/** Where a listing is shown: its page's path, and the owner it is limited to (none: everyone's). */
export interface ListingPlace {
  path: string;
  owner?: string;
}

/** What a listing page shows above its list. */
export interface ListingHead {
  title: string;
  heading: ComponentChildren;
  /** What is listed, before "N repositories…": e.g. nothing, or the owner. */
  filterLabel: string;
  placeholder: string;
}

/**
 * The page of `place`'s repositories for the query `query`: a 400 page when its parameters are
 * bad, DomainError not_found when the owner does not exist.
 */
export async function renderRepoListing(
  ctx: Signet,
  query: URLSearchParams,
  place: ListingPlace,
  head: ListingHead,
): Promise<Rendered> {
  let params;
  try {
    params = parseRepoListParams((name) =>
      name === "sort" ? "pushed" : query.get(name) ?? undefined
    );
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const bad = messagePage(400, "Bad request", "This list cannot be shown:", err.message, {
      href: place.path,
      label: "Go to the first page",
    });
    return { ...bad, error: err.message };
  }
  const found = await pageReposOf(ctx, params, place.owner);
  const view = pageView(found, params);
  const q = params.words.join(" ");
  const link = (cursor: { after: string } | { before: string }) => {
    const p = new URLSearchParams(cursor);
    if (q) p.set("q", q);
    if (query.get("limit")) p.set("limit", String(params.limit));
    return `${place.path}?${p}`;
  };
  return page(
    head.title,
    <>
      <div class="page-header">
        <div>
          <h1>{head.heading}</h1>
          <p class="page-description">
            {`${found.total} repositor${found.total === 1 ? "y" : "ies"}`}
            {q && (
              <>
                {" matching “"}
                <Name text={q} />
                {"”"}
              </>
            )}
            {", most recently pushed first"}
          </p>
        </div>
      </div>
      <form class="search-form" role="search" action={place.path} method="get">
        <label class="visually-hidden" for="listing-q">{head.filterLabel}</label>
        <input
          id="listing-q"
          class="input"
          type="search"
          name="q"
          value={q}
          placeholder={head.placeholder}
        />
        <button class="btn btn-secondary" type="submit">Filter</button>
      </form>
      <section class="box" aria-label="Repositories">
        <ul class="repo-list">
          {found.rows.map((r) => (
            <RepoItem key={`${r.owner}/${r.name}`} repo={r} withOwner={place.owner === undefined} />
          ))}
          {found.rows.length === 0 && (
            <li>
              <span class="muted">{q ? "No repository matches." : "No repositories yet."}</span>
            </li>
          )}
        </ul>
      </section>
      {(view.prev || view.next) && (
        <nav class="pager" aria-label="Pages">
          {view.prev && (
            <a class="btn btn-secondary btn-sm" href={link({ before: view.prev })}>Newer</a>
          )}
          {view.next && (
            <a class="btn btn-secondary btn-sm" href={link({ after: view.next })}>Older</a>
          )}
        </nav>
      )}
    </>,
  );
}

/** One repository of a list: its name (with its owner's on the explore page) and last push. */
function RepoItem({ repo, withOwner }: { repo: RepoRow; withOwner: boolean }): VNode {
  const pushed = repo.pushed_at ? Math.floor(Date.parse(repo.pushed_at) / 1000) : null;
  return (
    <li>
      <a class="name" href={`/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`}>
        <Name text={withOwner ? `${repo.owner}/${repo.name}` : repo.name} />
      </a>
      <span class="muted">
        {pushed
          ? (
            <>
              pushed <When unix={pushed} />
            </>
          )
          : "never pushed"}
      </span>
    </li>
  );
}
