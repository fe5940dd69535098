/**
 * `/explore`: every repository on the server (all are public), most recently pushed first, 50 a
 * page with cursors in the URL (`after`, `before`) and an optional filter (`q`: words that
 * `owner/name` must all contain). What the logo of every repository page leads to, as a forge's
 * explore page does; the repository listing's own paging and rules (server/domain/listing.ts).
 */
import { DomainError } from "../../../protocol/errors.ts";
import { pageReposOf, parseRepoListParams } from "../../domain/repos.ts";
import { pageView } from "../../domain/listing.ts";
import type { Signet } from "../../context.ts";
import { EXPLORE_PATH, messagePage, Name, page, type Rendered, When } from "./frame.tsx";

/** The explore page for the query `query` (a 400 page when its parameters are bad). */
export async function renderExplore(ctx: Signet, query: URLSearchParams): Promise<Rendered> {
  let params;
  try {
    params = parseRepoListParams((name) =>
      name === "sort" ? "pushed" : query.get(name) ?? undefined
    );
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const bad = messagePage(400, "Bad request", "This list cannot be shown:", err.message, {
      href: EXPLORE_PATH,
      label: "Go to the first page",
    });
    return { ...bad, error: err.message };
  }
  const found = await pageReposOf(ctx, params);
  const view = pageView(found, params);
  const q = params.words.join(" ");
  const link = (cursor: { after: string } | { before: string }) => {
    const p = new URLSearchParams(cursor);
    if (q) p.set("q", q);
    if (query.get("limit")) p.set("limit", String(params.limit));
    return `${EXPLORE_PATH}?${p}`;
  };
  const unix = (iso: string | null) => (iso ? Math.floor(Date.parse(iso) / 1000) : null);
  return page(
    "Explore repositories",
    <>
      <div class="page-header">
        <div>
          <h1>Repositories</h1>
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
      <form class="search-form" role="search" action={EXPLORE_PATH} method="get">
        <label class="visually-hidden" for="explore-q">Filter repositories</label>
        <input
          id="explore-q"
          class="input"
          type="search"
          name="q"
          value={q}
          placeholder="owner or name"
        />
        <button class="btn btn-secondary" type="submit">Filter</button>
      </form>
      <section class="box" aria-label="Repositories">
        <ul class="repo-list">
          {found.rows.map((r) => (
            <li>
              <a
                class="name"
                href={`/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.name)}`}
              >
                <Name text={`${r.owner}/${r.name}`} />
              </a>
              <span class="muted">
                {r.pushed_at
                  ? (
                    <>
                      pushed <When unix={unix(r.pushed_at)} />
                    </>
                  )
                  : "empty"}
              </span>
            </li>
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
