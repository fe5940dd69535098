/** `/<owner>/<repo>/commits/<ref>[/<path>]`: a ref's (or a path's) history, 50 commits a page. */
import { joinPath } from "../../domain/browse/paths.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import type { VNode } from "preact";
import {
  COMMITS_PER_PAGE,
  type CommitSummary,
  history,
  MAX_HISTORY_PAGE,
} from "../../domain/browse/history.ts";
import { pageNumber, type PageRequest } from "./context.ts";
import {
  Crumbs,
  Name,
  notFoundPage,
  page,
  type Rendered,
  RepoBar,
  repoTitle,
  titleRef,
  When,
} from "./frame.tsx";

/** The history page. */
export async function renderCommits(req: PageRequest, at: Resolved): Promise<Rendered> {
  const { urls } = req;
  const n = pageNumber(req.query, MAX_HISTORY_PAGE);
  const here = urls.at("commits", at.ref, at.path);
  if (n === null) {
    return notFoundPage(`${at.ref} page ${req.query.get("page")}`, {
      href: here,
      label: "Go to the first page",
    });
  }
  const path = joinPath(at.path);
  const { commits, more } = await history(req.ctx, req.repo, at.commit, path, n, req.client);
  if (commits.length === 0 && n > 1) {
    return notFoundPage(`${at.ref} page ${n}`, { href: here, label: "Go to the first page" });
  }
  const title = `History of ${path ? `${path} at ${titleRef(at)}` : titleRef(at)}`;
  // A ref's history has a feed (commits_feed.ts); a path's has none.
  const feed = at.path.length === 0
    ? {
      href: `${urls.at("commits", at.ref)}.atom`,
      title: `${req.repo.row.owner}/${req.repo.row.name}: commits on ${at.ref}`,
    }
    : undefined;
  return page(
    repoTitle(req.repo, n > 1 ? `${title}, page ${n}` : title),
    <>
      <RepoBar
        repo={req.repo}
        tab="commits"
        gitRef={at.ref}
        link={(ref) => urls.at("commits", ref, at.path)}
      >
        {at.path.length > 0 && <Crumbs repo={req.repo} gitRef={at.ref} path={at.path} />}
        {feed && (
          <>
            <span class="spacer" />
            <a class="btn btn-ghost btn-sm" href={feed.href} type="application/atom+xml">
              Atom feed
            </a>
          </>
        )}
      </RepoBar>
      <h2 class="visually-hidden">Commits</h2>
      <div class="box">
        <CommitList
          req={req}
          commits={commits}
          path={at.path}
          empty="No commits touch this path."
        />
      </div>
      {(n > 1 || more) && (
        <nav class="pager" aria-label="Pages">
          {n > 1 && (
            <a class="btn btn-secondary btn-sm" href={n === 2 ? here : `${here}?page=${n - 1}`}>
              Newer
            </a>
          )}
          {more && <a class="btn btn-secondary btn-sm" href={`${here}?page=${n + 1}`}>Older</a>}
        </nav>
      )}
      {(n > 1 || more) && <p class="muted">{`${COMMITS_PER_PAGE} commits a page.`}</p>}
    </>,
    200,
    feed,
  );
}

/** Commits as a list: subject, author, date, id, and a link to the files at each (at `path`). */
export function CommitList(
  { req, commits, path, empty }: {
    req: PageRequest;
    commits: CommitSummary[];
    path: string[];
    /** What the list says when it is empty. */
    empty: string;
  },
): VNode {
  const { urls } = req;
  return (
    <ul class="commit-list">
      {commits.map((c) => (
        <li>
          <a class="subject" href={urls.commit(c.id)}>
            <Name text={c.subject || "(no message)"} />
          </a>
          <span class="meta">
            <Name text={c.author} /> · <When unix={c.date} />
          </span>
          <a class="mono meta" href={urls.commit(c.id)} aria-label={`Commit ${c.id.slice(0, 10)}`}>
            {c.id.slice(0, 10)}
          </a>
          <a
            class="meta"
            href={urls.at("tree", c.id, path)}
            aria-label={`Browse files at ${c.id.slice(0, 10)}`}
          >
            Browse
          </a>
        </li>
      ))}
      {commits.length === 0 && (
        <li>
          <span class="muted">{empty}</span>
        </li>
      )}
    </ul>
  );
}
