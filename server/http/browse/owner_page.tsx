/** `/<owner>`: a user's repositories, most recently pushed first, each with its last push. */
import type { Signet } from "../../context.ts";
import { listReposOf } from "../../domain/repos.ts";
import { Name, page, type Rendered, When } from "./frame.tsx";

/** Repositories listed on the page (the rest are counted). */
export const MAX_OWNER_REPOS = 1000;

/** The owner page (DomainError not_found when there is no such user). */
export async function renderOwner(ctx: Signet, owner: string): Promise<Rendered> {
  const rows = await listReposOf(ctx, owner);
  const sorted = [...rows].sort((a, b) =>
    (b.pushed_at ?? "").localeCompare(a.pushed_at ?? "") || a.name.localeCompare(b.name)
  );
  const shown = sorted.slice(0, MAX_OWNER_REPOS);
  const unix = (iso: string | null) => (iso ? Math.floor(Date.parse(iso) / 1000) : null);
  return page(
    owner,
    <>
      <div class="page-header">
        <div>
          <h1>{owner}</h1>
          <p class="page-description">
            {`${rows.length} repositor${rows.length === 1 ? "y" : "ies"}`}
          </p>
        </div>
      </div>
      <section class="box" aria-label="Repositories">
        <ul class="repo-list">
          {shown.map((r) => (
            <li>
              <a
                class="name"
                href={`/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.name)}`}
              >
                <Name text={r.name} />
              </a>
              <span class="muted">
                {r.pushed_at
                  ? (
                    <>
                      Last push <When unix={unix(r.pushed_at)} />
                    </>
                  )
                  : "Never pushed"}
              </span>
            </li>
          ))}
          {rows.length === 0 && (
            <li>
              <span class="muted">No repositories yet.</span>
            </li>
          )}
        </ul>
        {rows.length > shown.length && (
          <p class="box-body muted">{`${rows.length - shown.length} more are not listed.`}</p>
        )}
      </section>
    </>,
  );
}
