/** `/<owner>/<repo>/branches` and `/<owner>/<repo>/tags`: each ref with its last commit's date. */
import type { RefInfo } from "../../domain/browse/refs.ts";
import { pageNumber, type PageRequest } from "./context.ts";
import {
  ArchiveLinks,
  Name,
  notFoundPage,
  page,
  type Rendered,
  RepoHeader,
  When,
} from "./frame.tsx";

/** Refs a page lists. */
export const REFS_PER_PAGE = 100;

/** The branches or tags page. */
export function renderRefs(req: PageRequest, kind: "branches" | "tags"): Rendered {
  const { repo, urls } = req;
  // Branches by name; tags newest first, as releases are looked for.
  const all: RefInfo[] = kind === "branches"
    ? repo.refs.branches
    : [...repo.refs.tags].sort((a, b) => (b.date ?? 0) - (a.date ?? 0));
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
  // A URL's short name means the branch when a branch and a tag share it: such a tag is linked
  // by its commit.
  const linkRef = (r: RefInfo) =>
    repo.refs.byName.get(r.name)?.kind === r.kind || !r.commit ? r.name : r.commit;
  const title = kind === "branches" ? "Branches" : "Tags";
  // A tag's subject is its own message when annotated.
  const subjectLabel = kind === "branches" ? "Last commit" : "Message";
  return page(
    `${title} · ${repo.row.owner}/${repo.row.name}`,
    <>
      <RepoHeader repo={repo} tab={kind} />
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
  );
}
