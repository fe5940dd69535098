/**
 * Abbreviated commit ids in the browser's URLs (`/commit/8742d0f`, `/tree/8742d0f/src`): the ids
 * `git log --oneline` prints, pasted into a URL. Each redirects (302) to the same URL with the full
 * id, so pages, their cache keys and the links people share name one commit whatever the
 * repository later holds. A branch or tag of the same name (or one under it, `abc1234/fix`) wins,
 * as everywhere else. Each abbreviation costs one `git cat-file` within the readers' bounds (not
 * cached: the redirect is what people keep).
 */
import { expandCommitId } from "../../domain/browse/refs.ts";
import { isAbbreviatedId } from "../../domain/browse/paths.ts";
import { NotFound } from "../../../ui/common/not_found.tsx";
import { commitsBeginningWith } from "../../domain/browse/history.ts";
import { Name, page, type Rendered, repoTitle } from "./frame.tsx";
import { CommitList } from "./commits_page.tsx";
import type { PageRequest } from "./context.ts";

/** Pages whose first segment is a ref or commit id, and the suffixes that segment may carry. */
const ID_SEGMENT_SUFFIXES: Record<string, string[]> = {
  tree: [""],
  blob: [""],
  blame: [""],
  raw: [""],
  commits: ["", ".atom"],
  commit: ["", ".patch"],
  archive: [".tar.gz", ".zip"],
};

/** What an abbreviated id in a page's URL comes to. */
export type Expanded =
  /** The URL of the full id's page. */
  | { location: string }
  /** Several commits begin with the abbreviation. */
  | { ambiguous: string };

/**
 * Where the page `page` with path segments `rest` (as sent, still percent-encoded) and query
 * `search` moves to when its first segment is an abbreviated commit id of the repository; null when
 * it is not one (a ref, a full id, nothing git knows: the page answers as usual).
 */
export async function expandAbbreviatedId(
  req: PageRequest,
  page: string,
  rest: string[],
  search: string,
): Promise<Expanded | null> {
  const first = rest[0];
  const suffix = first === undefined
    ? undefined
    : (ID_SEGMENT_SUFFIXES[page] ?? []).find((s) =>
      first.endsWith(s) && isAbbreviatedId(first.slice(0, first.length - s.length))
    );
  if (first === undefined || suffix === undefined) return null;
  const abbreviation = first.slice(0, first.length - suffix.length);
  if (namesRef(req, first)) return null;
  const id = await expandName(req, abbreviation);
  if (id === null) return null;
  if (id === "ambiguous") return { ambiguous: abbreviation };
  const path = [`${id}${suffix}`, ...rest.slice(1)].join("/");
  return { location: `${req.urls.base}/${page}/${path}${search}` };
}

/**
 * The full id of the commit that `name` abbreviates, when `name` is an abbreviated id (and no
 * branch or tag of the repository, nor any under it, is named so); "ambiguous", or null.
 */
export async function expandName(
  req: PageRequest,
  name: string,
): Promise<string | "ambiguous" | null> {
  if (!isAbbreviatedId(name) || namesRef(req, name)) return null;
  return await expandCommitId(req.ctx, req.repo, name, req.client);
}

/** A redirect to `location` as a page answer (never cached: only 200s are). */
export function redirectTo(location: string): Rendered {
  return { status: 302, body: "", headers: { Location: location } };
}

/**
 * Whether the URL segment `segment` begins a branch's or tag's name: the ref itself, or one whose
 * name continues with `/` (`abc1234/fix`), which the page's longest-prefix rule then takes.
 */
function namesRef(req: PageRequest, segment: string): boolean {
  const refs = req.repo.refs.byName;
  if (refs.has(segment)) return true;
  const under = `${segment}/`;
  for (const name of refs.keys()) if (name.startsWith(under)) return true;
  return false;
}

/**
 * The page for an abbreviation several commits begin with (404): those commits, each leading to
 * its page, and a way to the history.
 */
export async function ambiguousPage(req: PageRequest, abbreviation: string): Promise<Rendered> {
  const branch = req.repo.refs.defaultBranch;
  const commits = await commitsBeginningWith(req.ctx, req.repo, abbreviation, req.client);
  return page(
    repoTitle(req.repo, "Ambiguous commit id"),
    <>
      <NotFound
        path={abbreviation}
        title="Ambiguous commit id"
        lead="More than one object begins with"
        shown={<Name text={abbreviation} />}
      >
        {branch === null
          ? <a class="btn btn-secondary" href={req.urls.base}>Go to the repository</a>
          : (
            <a class="btn btn-secondary" href={req.urls.at("commits", branch)}>
              Find it in the history
            </a>
          )}
      </NotFound>
      {commits.length > 0 && (
        <section class="box">
          <h2 class="box-head">Commits that begin with {abbreviation}</h2>
          <CommitList req={req} commits={commits} path={[]} empty="" />
        </section>
      )}
    </>,
    404,
  );
}

/** The JSON error for an abbreviation several commits begin with. */
export function ambiguousError(abbreviation: string): string {
  return `commit id ${abbreviation} is ambiguous: more than one object begins with it; give more of its digits`;
}
