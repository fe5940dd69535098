/**
 * `/<owner>/<repo>/tags.atom`: the repository's newest tags as an Atom feed, at GitHub's address,
 * so people can follow its releases in a feed reader. Read from the refs list every page already
 * holds (no git process).
 */
import { baseUrl } from "../../domain/repos.ts";
import type { PageRequest } from "./context.ts";
import { atomResponse } from "./atom.ts";
import { refInUrl, tagsNewestFirst } from "./refs_page.tsx";

/** Tags a feed lists. */
export const TAGS_IN_FEED = 20;

/** The feed of the newest tags that name a commit. */
export function tagsFeed(req: PageRequest): Response {
  const base = baseUrl(req.ctx);
  const { repo, urls } = req;
  const tags = tagsNewestFirst(repo).filter((t) => t.commit).slice(0, TAGS_IN_FEED);
  const self = `${base}${urls.tagsFeed()}`;
  return atomResponse({
    self,
    alternate: `${base}${urls.base}/tags`,
    title: `${repo.row.owner}/${repo.row.name}: tags`,
    entries: tags.map((t) => ({
      link: `${base}${urls.at("tree", refInUrl(repo, t))}`,
      // The link changes when a branch of the same name comes or goes; the tag stays the entry.
      id: `${self}#${encodeURIComponent(t.name)}`,
      title: t.name,
      updated: t.date ?? 0,
      author: t.author,
      content: `${t.subject}\n\n${t.commit}`,
    })),
  });
}
