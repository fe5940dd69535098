/**
 * `/<owner>/<repo>/tree-commits/<ref>/<path>`: JSON of the last commit of each entry a directory's
 * page lists (server/domain/browse/entry_commits.ts), which the page's script puts beside each
 * name once the page is shown: the page itself never waits for the history walk. Entries not
 * reached in the walk's time are left out, and `complete` says so.
 */
import { joinPath } from "../../domain/browse/paths.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import { listTree } from "../../domain/browse/tree.ts";
import { entryCommits } from "../../domain/browse/entry_commits.ts";
import type { PageRequest } from "./context.ts";
import { notFoundPage, type Rendered } from "./frame.tsx";

/** One entry's last commit, as the JSON carries it. */
export interface TreeCommitView {
  /** The commit page's path. */
  href: string;
  id: string;
  subject: string;
  author: string;
  /** Author date, ISO 8601. */
  date: string;
}

/** The JSON answer (a 404 when the path is not a directory at that ref). */
export async function renderTreeCommits(req: PageRequest, at: Resolved): Promise<Rendered> {
  const path = joinPath(at.path);
  const tree = await listTree(req.ctx, req.repo, at.commit, path, req.client);
  if (tree.kind !== "tree") {
    return notFoundPage(
      `${req.repo.row.owner}/${req.repo.row.name}/tree-commits/${at.ref}/${path}`,
      {
        href: req.urls.base,
        label: "Go to the repository",
      },
    );
  }
  const found = await entryCommits(
    req.ctx,
    req.repo,
    at.commit,
    at.path,
    tree.entries.map((e) => e.name),
    req.client,
  );
  const commits: Record<string, TreeCommitView> = {};
  for (const [name, c] of found.commits) {
    commits[name] = {
      href: req.urls.commit(c.id),
      id: c.id,
      subject: c.subject,
      author: c.author,
      date: new Date(c.date * 1000).toISOString(),
    };
  }
  return {
    status: 200,
    body: JSON.stringify({ commits, complete: found.complete }),
    headers: { "Content-Type": "application/json; charset=utf-8" },
    // Kept like a page, even when the walk was cut short: walking a long history again for every
    // visit would cost the same seconds each time for the same answer, until the next push.
  };
}
