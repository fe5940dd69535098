/** `/<owner>/<repo>/branches` and `/<owner>/<repo>/tags`: each ref with its last commit's date. */
import type { BrowseRepo, RefInfo } from "../../domain/browse/refs.ts";
import { pageNumber, type PageRequest } from "./context.ts";
import {
  ArchiveLinks,
  Name,
  notFoundPage,
  page,
  plain,
  type Rendered,
  RepoHeader,
  When,
} from "./frame.tsx";

/** Refs a page lists. */
export const REFS_PER_PAGE = 100;

/** The repository's tags, newest first (those without a date last). */
function tagsNewestFirst(repo: BrowseRepo): RefInfo[] {
  return [...repo.refs.tags].sort((a, b) => (b.date ?? 0) - (a.date ?? 0));
}

/**
 * How a URL names the ref `r`: by its short name, unless a branch of the same name takes that
 * (a URL's short name means the branch), then by its commit.
 */
export function refInUrl(
  repo: BrowseRepo,
  r: Pick<RefInfo, "name" | "kind" | "commit">,
): string {
  return repo.refs.byName.get(r.name)?.kind === r.kind || !r.commit ? r.name : r.commit;
}

/** The branches or tags page. */
export function renderRefs(req: PageRequest, kind: "branches" | "tags"): Rendered {
  const { repo, urls } = req;
  // Branches by name; tags newest first, as releases are looked for.
  const all: RefInfo[] = kind === "branches" ? repo.refs.branches : tagsNewestFirst(repo);
  const here = `${urls.base}/${kind}`;
  const pages = Math.max(1, Math.ceil(all.length / REFS_PER_PAGE));
  const n = pageNumber(req.query, pages);
  if (n === null) {
    return notFoundPage(`${kind} page ${req.query.get("page")}`, {
      href: here,
      label: "Go to the first page",
    });
  }
  const refs = all.slice((n - 1) * REFS_PER_PAGE, n * REFS_PER_PAGE);
  const linkRef = (r: RefInfo) => refInUrl(repo, r);
  const title = kind === "branches" ? "Branches" : "Tags";
  // A tag's subject is its own message when annotated.
  const subjectLabel = kind === "branches" ? "Last commit" : "Message";
  // The tags have a feed (tags_feed.ts), for following releases.
  const feed = kind === "tags"
    ? { href: urls.tagsFeed(), title: `${repo.row.owner}/${repo.row.name}: tags` }
    : undefined;
  return page(
    `${title} · ${repo.row.owner}/${repo.row.name}`,
    <>
      <RepoHeader repo={repo} tab={kind} />
      {feed && (
        <div class="toolbar">
          <span class="spacer" />
          <a class="btn btn-ghost btn-sm" href={feed.href} type="application/atom+xml">
            Atom feed
          </a>
        </div>
      )}
      <div class="box table-wrap">
        <table class="table refs-table">
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">{subjectLabel}</th>
              <th scope="col">Date</th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {refs.map((r) => (
              <tr>
                <td class="cell-main refs-name">
                  {r.commit
                    ? (
                      <a href={urls.at("tree", linkRef(r))}>
                        <Name text={r.name} />
                      </a>
                    )
                    : <Name text={r.name} />}
                  {r.name === repo.refs.defaultBranch && kind === "branches" && (
                    <span class="badge badge-neutral">default</span>
                  )}
                  {kind === "branches" && r.commit && repo.refs.defaultBranch !== null &&
                    r.name !== repo.refs.defaultBranch && (
                    <a
                      class="compare-link"
                      href={urls.compare(repo.refs.defaultBranch, r.name)}
                      aria-label={`Compare ${plain(r.name)} with ${plain(repo.refs.defaultBranch)}`}
                    >
                      compare
                    </a>
                  )}
                </td>
                <td data-label={subjectLabel}>
                  {r.commit
                    ? (
                      <a href={urls.commit(r.commit)}>
                        <Name text={r.subject || r.commit.slice(0, 10)} />
                      </a>
                    )
                    : <span class="muted">names no commit</span>}
                </td>
                <td class="nowrap" data-label="Date">
                  <When unix={r.date} />
                </td>
                <td class="nowrap" data-label="Download">
                  {r.commit && <ArchiveLinks urls={urls} gitRef={linkRef(r)} />}
                </td>
              </tr>
            ))}
            {refs.length === 0 && (
              <tr>
                <td colSpan={4} class="muted">{`No ${kind} yet.`}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav class="pager" aria-label="Pages">
          {n > 1 && <a class="btn btn-secondary btn-sm" href={`${here}?page=${n - 1}`}>Previous</a>}
          {n < pages && <a class="btn btn-secondary btn-sm" href={`${here}?page=${n + 1}`}>Next</a>}
        </nav>
      )}
    </>,
    200,
    feed,
  );
}
