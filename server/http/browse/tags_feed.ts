/**
 * `/<owner>/<repo>/tags.atom`: the repository's newest tags as an Atom feed, at GitHub's address,
 * so people can follow its releases in a feed reader: each an annotated tag's own date, tagger and
 * whole message (a lightweight tag's commit's), newest first (server/domain/browse/tags.ts).
 */
import { baseUrl } from "../../domain/repos.ts";
import { recentTags } from "../../domain/browse/tags.ts";
import type { PageRequest } from "./context.ts";
import { atomResponse } from "./atom.ts";
import { refInUrl } from "./refs_page.tsx";

/** Tags a feed lists. */
export const TAGS_IN_FEED = 20;

/** The feed of the newest tags that name a commit. */
export async function tagsFeed(req: PageRequest): Promise<Response> {
  const base = baseUrl(req.ctx);
  const { repo, urls } = req;
  const tags = await recentTags(req.ctx, repo, TAGS_IN_FEED, req.client);
  const self = `${base}${urls.tagsFeed()}`;
  return atomResponse({
    self,
    alternate: `${base}${urls.base}/tags`,
    title: `${repo.row.owner}/${repo.row.name}: tags`,
    entries: tags.map((t) => ({
      link: `${base}${
        urls.at("tree", refInUrl(repo, { name: t.name, kind: "tag", commit: t.commit }))
      }`,
      // The link changes when a branch of the same name comes or goes; the tag stays the entry.
      id: `${self}#${encodeURIComponent(t.name)}`,
      title: t.name,
      updated: t.date,
      author: t.author,
      content: `${t.message}\n\n${t.commit}`,
    })),
  });
}
