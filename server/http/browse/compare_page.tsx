/**
 * `/<owner>/<repo>/compare/<base>...<head>`: what `head` (a branch, tag or full commit id) has that
 * `base` has not, as GitHub shows it: the commits (`git log head ^base`, at most 250), then the
 * diff from their merge base to `head` (what merging would bring). `<base>..<head>` (two dots)
 * diffs `base` against `head` directly. Git forbids `..` in ref names, so the split is unambiguous.
 * An abbreviated commit id on either side redirects to the comparison of the full ids.
 */
import { readDiff } from "../../domain/browse/commit.ts";
import { compareCommits, MAX_COMPARED_COMMITS } from "../../domain/browse/history.ts";
import { type Resolved, resolveRef } from "../../domain/browse/refs.ts";
import { urlSegments } from "../../domain/browse/paths.ts";
import type { PageRequest } from "./context.ts";
import { expandName, redirectTo } from "./abbreviated.tsx";
import type { VNode } from "preact";
import { Name, notFoundPage, page, type Rendered, RepoHeader } from "./frame.tsx";
import { CommitList } from "./commits_page.tsx";
import { ChangedFiles } from "./commit_page.tsx";

/** The compare page for the path segments after `compare/`, or a 404 page. */
export async function renderCompare(req: PageRequest, rest: string[]): Promise<Rendered> {
  const label = `${req.repo.row.owner}/${req.repo.row.name}/compare/${rest.join("/")}`;
  const missing = () =>
    notFoundPage(label, { href: `${req.urls.base}/branches`, label: "Go to the branches" });
  const spec = urlSegments(rest.join("/"))?.join("/") ?? "";
  const threeDots = spec.indexOf("...");
  const twoDots = spec.indexOf("..");
  const direct = threeDots < 0;
  const at = direct ? twoDots : threeDots;
  if (at <= 0) return missing();
  const names = [spec.slice(0, at), spec.slice(at + (direct ? 2 : 3))];
  const [base, head] = await Promise.all(names.map((name) => resolveWhole(req, name)));
  if (!base || !head) {
    // An abbreviated commit id on either side: the comparison of the full ids.
    const full = await Promise.all(
      [base, head].map(async (side, i) => side ? side.ref : await expandName(req, names[i])),
    );
    if (full.every((f) => f !== null && f !== "ambiguous")) {
      return redirectTo(req.urls.compare(full[0]!, full[1]!, direct));
    }
    return missing();
  }
  const found = await compareCommits(req.ctx, req.repo, base.commit, head.commit, req.client);
  const from = direct ? base.commit : found.mergeBase;
  const changes = from === null || from === head.commit
    ? null
    : await readDiff(req.ctx, req.repo, from, head.commit, req.client);
  const title = `Comparing ${base.ref}${direct ? ".." : "..."}${head.ref}`;
  return page(
    `${title} · ${req.repo.row.owner}/${req.repo.row.name}`,
    <>
      <RepoHeader repo={req.repo} tab="commits" />
      <h2 class="compare-title">
        Comparing{" "}
        <a href={req.urls.at("tree", base.ref)}>
          <Name text={base.ref} />
        </a>
        {direct ? " .. " : " ... "}
        <a href={req.urls.at("tree", head.ref)}>
          <Name text={head.ref} />
        </a>
      </h2>
      <p class="muted">
        <Summary base={base.ref} head={head.ref} direct={direct} found={found} />{" "}
        <a href={req.urls.compare(head.ref, base.ref, direct)}>Swap</a>
      </p>
      {found.commits.length > 0 && (
        <section class="box" aria-labelledby="compare-commits">
          <div class="box-head">
            <h2 id="compare-commits" class="card-title">Commits</h2>
          </div>
          <CommitList req={req} commits={found.commits} path={[]} empty="" />
        </section>
      )}
      {changes && (
        <ChangedFiles
          req={req}
          changes={changes}
          to={head.commit}
          from={from ?? undefined}
          note={direct ? undefined : "(since the merge base)"}
        />
      )}
    </>,
  );
}

// A ref (or full id) named whole: no path after it.
async function resolveWhole(req: PageRequest, name: string): Promise<Resolved | null> {
  const segments = name.split("/");
  if (name === "" || segments.some((s) => s === "")) return null;
  const at = await resolveRef(req.ctx, req.repo, segments, req.client);
  return at && at.path.length === 0 ? at : null;
}

/** What the comparison found, in a sentence (ref names shown with their bidi controls marked). */
function Summary(
  { base, head, direct, found }: {
    base: string;
    head: string;
    direct: boolean;
    found: { commits: unknown[]; more: boolean; mergeBase: string | null };
  },
): VNode {
  const n = found.commits.length;
  const diff = direct
    ? (
      <>
        The diff is <Name text={base} /> against <Name text={head} />.
      </>
    )
    : <>The diff is what merging would bring.</>;
  if (found.mergeBase === null) {
    return direct
      ? <>These have no history in common. {diff}</>
      : <>These have no history in common: there is nothing to merge.</>;
  }
  if (n === 0) {
    return (
      <>
        <Name text={head} /> has no commit that <Name text={base} />{" "}
        has not.{direct && <>{" "}{diff}</>}
      </>
    );
  }
  return (
    <>
      {`${n}${found.more ? "+" : ""} commit${n === 1 && !found.more ? "" : "s"} in `}
      <Name text={head} /> that <Name text={base} /> has not
      {found.more ? ` (the newest ${MAX_COMPARED_COMMITS} listed)` : ""}. {diff}
    </>
  );
}
