/**
 * Addresses GitHub answers that name a page another way, redirected to Signet's own address for
 * it (302): a commit by branch or tag name (`commit/main` → `commit/<id>`), `HEAD` for the default
 * branch (`tree/HEAD/src` → `tree/main/src`, `raw/HEAD/README.md` too), a file page with no file
 * (`blob/main` → `tree/main`), and a page with no ref at all (`tree` → `tree/<default branch>`).
 */
import { isSafePath, urlSegments } from "../../domain/browse/paths.ts";
import type { PageRequest } from "./context.ts";

/** Pages whose address is `<page>/<ref>/<path>`. */
const AT_REF = new Set(["tree", "blob", "blame", "commits"]);

/**
 * Where the page `page` with the segments `rest` (as in the URL) is, when it is an alias; null
 * when the address is the page's own (or names nothing: the page says so).
 */
export function aliasLocation(req: PageRequest, page: string, rest: string[]): string | null {
  const { repo, urls } = req;
  const fallback = repo.refs.defaultBranch;
  const segments = urlSegments(rest.join("/"));
  if (segments === null) return null;
  // Only what would be a page's own address is redirected to: no `.`, `..` or empty segment.
  if (!isSafePath(segments)) return null;
  // HEAD names the default branch: git refuses a branch or tag named HEAD, but not `HEAD/x`, so
  // HEAD is read so only while no ref starts with `HEAD/`.
  const headFree = ![...repo.refs.byName.keys()].some((name) => name.startsWith("HEAD/"));
  const named = segments[0] === "HEAD" && headFree ? fallback : null;
  if (page === "commit") {
    const ref = named !== null && segments.length === 1 ? named : segments.join("/");
    const commit = repo.refs.byName.get(ref)?.commit;
    return commit && segments.length > 0 ? urls.commit(commit) : null;
  }
  if (named && (AT_REF.has(page) || page === "raw")) return urls.at(page, named, segments.slice(1));
  if (!AT_REF.has(page) || fallback === null) return null;
  if (segments.length === 0) return urls.at(page === "blob" ? "tree" : page, fallback);
  // A file page naming a ref and no file: that ref's tree (a ref may hold `/`: the whole rest).
  if (page === "blob" && repo.refs.byName.has(segments.join("/"))) {
    return urls.at("tree", segments.join("/"));
  }
  return null;
}
