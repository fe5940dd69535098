/**
 * `/<owner>/<repo>/commits/<ref>.atom`: the ref's newest commits as an Atom feed (RFC 4287), as
 * GitHub and cgit offer one, for feed readers. Links are absolute, from the public base URL.
 */
import { baseUrl } from "../../domain/repos.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import { history } from "../../domain/browse/history.ts";
import type { PageRequest } from "./context.ts";
import { atomResponse } from "./atom.ts";

/** The feed of `at`'s newest commits (a history page's worth). */
export async function commitsFeed(req: PageRequest, at: Resolved): Promise<Response> {
  const { commits } = await history(req.ctx, req.repo, at.commit, "", 1, req.client);
  const base = baseUrl(req.ctx);
  const { owner, name } = req.repo.row;
  const page = `${base}${req.urls.at("commits", at.ref)}`;
  return atomResponse({
    self: `${page}.atom`,
    alternate: page,
    title: `${owner}/${name}: commits on ${at.ref}`,
    entries: commits.map((c) => ({
      link: `${base}${req.urls.commit(c.id)}`,
      title: c.subject || "(no message)",
      updated: c.date,
      author: c.author,
      content: `${c.subject}\n\n${c.id}`,
    })),
  });
}

/** Whether `rest` (the segments after `commits/`) asks for a feed: one ref, ending in `.atom`. */
export function feedRef(rest: string[]): string[] | null {
  const last = rest.at(-1) ?? "";
  if (!last.endsWith(".atom") || last === ".atom") return null;
  return [...rest.slice(0, -1), last.slice(0, -5)];
}
