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
import { plain, type Rendered } from "./frame.tsx";

/** One entry's last commit, as the JSON carries it. */
export interface TreeCommitView {
  /** The commit page's path. */
  href: string;
  id: string;
  /** The subject ("(no message)" when empty), bidi controls written out (frame.tsx's plain). */
  subject: string;
  /** The author's name, bidi controls written out. */
  author: string;
  /** Author date, ISO 8601. */
  date: string;
}

/** The JSON answer; null when the path is not a directory at that ref. */
export async function renderTreeCommits(req: PageRequest, at: Resolved): Promise<Rendered | null> {
  const tree = await listTree(req.ctx, req.repo, at.commit, joinPath(at.path), req.client);
  if (tree.kind !== "tree") return null;
  const found = await entryCommits(
    req.ctx,
    req.repo,
    at.commit,
    at.path,
    tree.entries.map((e) => e.name),
    req.client,
  );
  // An own property per name, `__proto__` included (an object literal would take it as its
  // prototype). Subject and author as plain() shows names where no markup goes: a bidi control
  // written out, never applied.
  const commits = Object.fromEntries(
    [...found.commits].map(([name, c]): [string, TreeCommitView] => [name, {
      href: req.urls.commit(c.id),
      id: c.id,
      subject: plain(c.subject || "(no message)"),
      author: plain(c.author),
      date: new Date(c.date * 1000).toISOString(),
    }]),
  );
  return {
    status: 200,
    body: JSON.stringify({ commits, complete: found.complete }),
    headers: { "Content-Type": "application/json; charset=utf-8" },
    // Kept like a page, even when the walk was cut short: walking a long history again for every
    // visit would cost the same seconds each time for the same answer, until the next push.
  };
}
