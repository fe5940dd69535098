/** `/<owner>/<repo>/tree/<ref>/<path>`: a directory at a ref, with its last commit and README. */
import type { VNode } from "preact";
import { joinPath } from "../../domain/browse/paths.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import { findReadme, listTree, SYMLINK_MODE, type TreeEntry } from "../../domain/browse/tree.ts";
import { type CommitSummary, lastCommit } from "../../domain/browse/history.ts";
import type { PageRequest } from "./context.ts";
import {
  bytes,
  Crumbs,
  Name,
  page,
  type Rendered,
  RepoBar,
  repoTitle,
  titleRef,
  When,
} from "./frame.tsx";
import { loadReadme, MAX_README_BYTES, quiet, Readme } from "./readme.tsx";
import { readBlob } from "../../domain/browse/blob.ts";
import { missingPathPage } from "./missing_path.tsx";

/**
 * The entries of a directory (inside a box): directories first, each linking to its page; the
 * page's script adds each entry's last commit from `data-commits` (tree_commits.ts), finding each
 * entry by its name percent-encoded in `data-name` (a name's bidi controls stay out of the markup).
 */
export function TreeList(
  { req, gitRef: ref, path, entries, total }: {
    req: PageRequest;
    gitRef: string;
    path: string[];
    entries: TreeEntry[];
    total: number;
  },
): VNode {
  const { urls } = req;
  return (
    <>
      <ul class="entries" aria-label="Files" data-commits={urls.at("tree-commits", ref, path)}>
        {path.length > 0 && (
          <li>
            <span class="kind" aria-hidden="true">↑</span>
            <a class="name" href={urls.at("tree", ref, path.slice(0, -1))}>..</a>
          </li>
        )}
        {entries.map((e) => {
          const at = [...path, e.name];
          return (
            <li data-name={encodeURIComponent(e.name)}>
              <span class="kind" aria-hidden="true">
                {e.type === "tree" ? "▸" : e.type === "commit" ? "◆" : "·"}
              </span>
              {e.type === "commit"
                ? (
                  <span class="name">
                    <Name text={e.name} /> <span class="muted">(submodule)</span>
                  </span>
                )
                : (
                  <a class="name" href={urls.at(e.type === "tree" ? "tree" : "blob", ref, at)}>
                    <Name text={e.name} />
                    {e.type === "tree" ? "/" : ""}
                    {e.mode === SYMLINK_MODE && <span class="muted">(symbolic link)</span>}
                  </a>
                )}
              {e.size !== null && <span class="meta optional">{bytes(e.size)}</span>}
            </li>
          );
        })}
        {entries.length === 0 && (
          <li>
            <span class="muted">This directory is empty.</span>
          </li>
        )}
      </ul>
      {total > entries.length && (
        <p class="box-body muted">
          {`${(total - entries.length).toLocaleString("en")} more entries are not shown (${
            total.toLocaleString("en")
          } in all): clone the repository to see them all.`}
        </p>
      )}
    </>
  );
}

/** The newest commit (of a path): subject, author, date, id. */
export function LastCommit(
  { req, commit }: { req: PageRequest; commit: CommitSummary | null },
): VNode | null {
  if (!commit) return null;
  return (
    <div class="box-head last-commit">
      <a class="subject" href={req.urls.commit(commit.id)}>
        <Name text={commit.subject || "(no message)"} />
      </a>
      <span class="muted">
        <Name text={commit.author} /> · <When unix={commit.date} />
      </span>
      <span class="spacer" />
      <a class="mono" href={req.urls.commit(commit.id)}>{commit.id.slice(0, 10)}</a>
    </div>
  );
}

/** The tree page (or a redirect to the blob page when the path is a file). */
export async function renderTree(req: PageRequest, at: Resolved): Promise<Rendered> {
  const path = joinPath(at.path);
  // At the root, README.md is read beside the listing (as on the home page): one round of git.
  const guess = path ? undefined : {
    name: "README.md",
    blob: quiet(readBlob(req.ctx, req.repo, at.commit, "README.md", req.client, MAX_README_BYTES)),
  };
  const [tree, last] = await Promise.all([
    listTree(req.ctx, req.repo, at.commit, path, req.client),
    lastCommit(
      req.ctx,
      req.repo,
      at.commit,
      path,
      req.client,
      at.kind === "commit" ? undefined : req.repo.refs.byName.get(at.ref),
    ),
  ]);
  if (tree.kind === "blob") {
    return { status: 302, body: "", headers: { Location: req.urls.at("blob", at.ref, at.path) } };
  }
  if (tree.kind === "missing") return await missingPathPage(req, at, "tree");
  const entry = findReadme(tree.entries);
  const readme = entry ? await loadReadme(req, at, at.path, entry, guess) : null;
  // The ref is in the title as it is in the address (`/tree/v1.0`); the home page names none.
  const title = path
    ? repoTitle(req.repo, `${path} at ${titleRef(at)}`)
    : `${repoTitle(req.repo)} at ${titleRef(at)}`;
  return page(
    title,
    <>
      <RepoBar
        repo={req.repo}
        tab="code"
        gitRef={at.ref}
        link={(ref) => req.urls.at("tree", ref, at.path)}
      >
        <Crumbs repo={req.repo} gitRef={at.ref} path={at.path} />
        <span class="spacer" />
        <a class="btn btn-ghost btn-sm" href={req.urls.at("commits", at.ref, at.path)}>History</a>
      </RepoBar>
      <div class="box">
        <LastCommit req={req} commit={last} />
        <TreeList
          req={req}
          gitRef={at.ref}
          path={at.path}
          entries={tree.entries}
          total={tree.total}
        />
      </div>
      {readme && <Readme data={readme} />}
    </>,
  );
}
