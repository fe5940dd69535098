/**
 * Atom feeds (RFC 4287) of a repository's pages, as GitHub and cgit offer them for feed readers:
 * one document shape, links absolute (from the public base URL), served sandboxed like a raw file.
 */
import { escapeHtml } from "./highlight.ts";
import { RAW_HEADERS } from "./raw.ts";

/** The feeds' media type. */
export const ATOM_TYPE = "application/atom+xml; charset=utf-8";

/** One entry of a feed. Dates are Unix seconds. */
export interface AtomEntry {
  /** The page it links to (absolute); its id too, unless `id` is given. */
  link: string;
  /** A lasting id, where the link may change for the same entry. */
  id?: string;
  title: string;
  updated: number;
  author: string;
  /** Plain text. */
  content: string;
}

/** A feed: its own URL, the page it follows, its title, entries newest first. */
export interface AtomFeed {
  self: string;
  alternate: string;
  title: string;
  entries: AtomEntry[];
}

/** `s` as XML text: escaped, without the control characters XML 1.0 cannot hold. */
function xml(s: string): string {
  // deno-lint-ignore no-control-regex
  return escapeHtml(s.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, ""));
}

/** Unix seconds as an RFC 3339 date. */
function rfc3339(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The feed as an answer (updated: its newest entry's date). */
export function atomResponse(feed: AtomFeed): Response {
  const updated = Math.max(0, ...feed.entries.map((e) => e.updated));
  const entries = feed.entries.map((e) =>
    [
      "<entry>",
      `<id>${xml(e.id ?? e.link)}</id>`,
      `<title>${xml(e.title)}</title>`,
      `<link rel="alternate" type="text/html" href="${xml(e.link)}"/>`,
      `<updated>${rfc3339(e.updated)}</updated>`,
      `<author><name>${xml(e.author || "unknown")}</name></author>`,
      `<content type="text">${xml(e.content)}</content>`,
      "</entry>",
    ].join("")
  );
  const body = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${xml(feed.self)}</id>`,
    `<title>${xml(feed.title)}</title>`,
    `<link rel="self" type="application/atom+xml" href="${xml(feed.self)}"/>`,
    `<link rel="alternate" type="text/html" href="${xml(feed.alternate)}"/>`,
    `<updated>${rfc3339(updated)}</updated>`,
    ...entries,
    "</feed>",
    "",
  ].join("\n");
  return new Response(body, { headers: { ...RAW_HEADERS, "Content-Type": ATOM_TYPE } });
}
