/**
 * `/<owner>/<repo>/commits/<ref>.atom`: the ref's newest commits as an Atom feed (RFC 4287), as
 * GitHub and cgit offer one, for feed readers. Links are absolute, from the public base URL.
 */
import { baseUrl } from "../../domain/repos.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import { history } from "../../domain/browse/history.ts";
import type { PageRequest } from "./context.ts";
import { escapeHtml } from "./highlight.ts";

/** The feed's media type. */
export const ATOM_TYPE = "application/atom+xml; charset=utf-8";

/** `s` as XML text: escaped, without the control characters XML 1.0 cannot hold. */
function xml(s: string): string {
  // deno-lint-ignore no-control-regex
  return escapeHtml(s.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, ""));
}

/** Unix seconds as an RFC 3339 date. */
function rfc3339(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The feed of `at`'s newest commits (a history page's worth). */
export async function commitsFeed(req: PageRequest, at: Resolved): Promise<Response> {
  const { commits } = await history(req.ctx, req.repo, at.commit, "", 1, req.client);
  const base = baseUrl(req.ctx);
  const { owner, name } = req.repo.row;
  const self = `${base}${req.urls.at("commits", at.ref)}.atom`;
  const updated = commits.length ? commits[0].date : 0;
  const entries = commits.map((c) => {
    const link = `${base}${req.urls.commit(c.id)}`;
    return [
      "<entry>",
      `<id>${xml(link)}</id>`,
      `<title>${xml(c.subject || "(no message)")}</title>`,
      `<link rel="alternate" type="text/html" href="${xml(link)}"/>`,
      `<updated>${rfc3339(c.date)}</updated>`,
      `<author><name>${xml(c.author || "unknown")}</name></author>`,
      `<content type="text">${xml(`${c.subject}\n\n${c.id}`)}</content>`,
      "</entry>",
    ].join("");
  });
  const body = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${xml(self)}</id>`,
    `<title>${xml(`${owner}/${name}: commits on ${at.ref}`)}</title>`,
    `<link rel="self" type="application/atom+xml" href="${xml(self)}"/>`,
    `<link rel="alternate" type="text/html" href="${
      xml(`${base}${req.urls.at("commits", at.ref)}`)
    }"/>`,
    `<updated>${rfc3339(updated)}</updated>`,
    ...entries,
    "</feed>",
    "",
  ].join("\n");
  return new Response(body, {
    headers: {
      "Content-Type": ATOM_TYPE,
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
    },
  });
}

/** Whether `rest` (the segments after `commits/`) asks for a feed: one ref, ending in `.atom`. */
export function feedRef(rest: string[]): string[] | null {
  const last = rest.at(-1) ?? "";
  if (!last.endsWith(".atom") || last === ".atom") return null;
  return [...rest.slice(0, -1), last.slice(0, -5)];
}
