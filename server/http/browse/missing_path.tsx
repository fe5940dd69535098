/**
 * The 404 pages for a ref or a path that is not there, which say what was missing and lead to the
 * nearest thing that is: the deepest folder of the path that the ref has, the same path on the
 * default branch (someone who switched branches on a file that only one of them has), or the
 * repository's branches and tags when no ref matched.
 */
import { NotFound } from "../../../ui/common/not_found.tsx";
import { joinPath } from "../../domain/browse/paths.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import { pathKinds } from "../../domain/browse/tree.ts";
import type { PageRequest } from "./context.ts";
import { Name, page, type Rendered, repoTitle, titleRef } from "./frame.tsx";

const KIND_LABEL = { branch: "Branch", tag: "Tag", commit: "Commit" } as const;

/**
 * The page for `at.path`, which `at`'s ref does not have, seen through `view`: names the ref and
 * the path, and links to the deepest folder of the path that the ref has (else its root) and, when
 * the default branch has the path, to it there.
 */
export async function missingPathPage(
  req: PageRequest,
  at: Resolved,
  view: "tree" | "blob" | "blame",
): Promise<Rendered> {
  const { urls, repo } = req;
  const parents = at.path.slice(0, -1).map((_, i) => at.path.slice(0, at.path.length - 1 - i));
  const main = repo.refs.defaultBranch;
  const mainCommit = main === null ? null : repo.refs.byName.get(main)?.commit ?? null;
  // The default branch is asked about the path too, unless it is the ref that lacks it.
  const onMain = mainCommit === null || (at.kind === "branch" && at.ref === main)
    ? []
    : [{ commit: mainCommit, path: joinPath(at.path) }];
  const kinds = await pathKinds(req.ctx, repo, [
    ...parents.map((p) => ({ commit: at.commit, path: joinPath(p) })),
    ...onMain,
  ], req.client);
  const deepest = parents.find((_, i) => kinds[i] === "tree");
  const up = deepest
    ? (
      <a class="btn btn-secondary" href={urls.at("tree", at.ref, deepest)}>
        Go to <Name text={`${joinPath(deepest)}/`} />
      </a>
    )
    : <a class="btn btn-secondary" href={urls.at("tree", at.ref)}>Go to the repository's root</a>;
  const there = onMain.length ? kinds[parents.length] : "missing";
  const elsewhere = (there === "tree" || there === "blob") && (
    <a
      class="btn btn-secondary"
      href={urls.at(there === "tree" ? "tree" : view === "tree" ? "blob" : view, main!, at.path)}
    >
      See it on <Name text={main!} />
    </a>
  );
  const ref = titleRef(at);
  const path = joinPath(at.path);
  return page(
    repoTitle(req.repo, `${path} is not on ${ref}`),
    <NotFound
      path={path}
      lead={
        <>
          {KIND_LABEL[at.kind]}{" "}
          <code>
            <Name text={ref} />
          </code>{" "}
          has no
        </>
      }
      shown={<Name text={path} />}
    >
      {up}
      {elsewhere && <>{" "}{elsewhere}</>}
    </NotFound>,
    404,
  );
}

/**
 * The page for a ref page whose address names no branch, tag or commit of the repository
 * (`segments`: the address after the page's name, decoded): links to the branches, the tags and
 * the repository.
 */
export function unknownRefPage(req: PageRequest, segments: string[]): Rendered {
  const { urls } = req;
  const what = joinPath(segments);
  return page(
    repoTitle(req.repo, "Page not found"),
    <NotFound
      path={what}
      lead={
        <>
          No branch, tag or commit of <Name text={`${req.repo.row.owner}/${req.repo.row.name}`} />
          {" "}
          starts the path
        </>
      }
      shown={<Name text={what} />}
    >
      <a class="btn btn-secondary" href={`${urls.base}/branches`}>See the branches</a>{" "}
      <a class="btn btn-secondary" href={`${urls.base}/tags`}>See the tags</a>{" "}
      <a class="btn btn-secondary" href={urls.base}>Go to the repository</a>
    </NotFound>,
    404,
  );
}
