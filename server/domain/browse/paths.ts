/**
 * Reading the ref and the path out of a browser URL (`/tree/<ref>/<path>`): what git may be asked
 * about is checked here first. A ref is only ever one of the repository's own refs (found in its
 * ref list, then named to git by its object id) or a full object id; a path is plain segments.
 */

/** Longest path accepted, in characters. */
export const MAX_PATH_LENGTH = 4096;

/** A full object id: SHA-1 (40 hex digits) or SHA-256 (64). */
export const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** An abbreviated object id as `git log --oneline` prints one: 7 or more lower-case hex digits. */
const ABBREVIATED_ID = /^[0-9a-f]{7,63}$/;

/** Whether `s` is an abbreviated (not full), lower-case object id. */
export function isAbbreviatedId(s: string): boolean {
  return ABBREVIATED_ID.test(s) && !OBJECT_ID.test(s);
}

/** Whether `s` is a full, lower-case object id. */
export function isObjectId(s: string): boolean {
  return OBJECT_ID.test(s);
}

/**
 * Splits a URL path (after the page name) into its segments, percent-decoded; null when a segment
 * does not decode. Empty segments (a trailing slash, `a//b`) are dropped.
 */
export function urlSegments(rest: string): string[] | null {
  const out: string[] = [];
  for (const raw of rest.split("/")) {
    if (raw === "") continue;
    try {
      out.push(...decodeURIComponent(raw).split("/").filter((s) => s !== ""));
    } catch {
      return null;
    }
  }
  return out;
}

/**
 * Whether `segments` name a path inside a tree git can be asked about: no `.` or `..` (nothing
 * leaves the tree), no control characters (git's batch input is line-based; a name with a newline
 * cannot be asked for), at most MAX_PATH_LENGTH characters in all.
 */
export function isSafePath(segments: string[]): boolean {
  let length = 0;
  for (const s of segments) {
    if (s === "" || s === "." || s === "..") return false;
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(s)) return false;
    length += s.length + 1;
  }
  return length <= MAX_PATH_LENGTH;
}

/** What a ref name in a URL turned out to be. */
export type RefKind = "branch" | "tag" | "commit";

/** A URL's ref and the path after it. */
export interface RefAndPath {
  /** The branch or tag name (short, e.g. `feature/x`), or the full commit id. */
  ref: string;
  kind: RefKind;
  /** The path's segments inside the tree (empty: the root). */
  path: string[];
}

/**
 * Finds the ref at the start of `segments` as GitHub does: the longest prefix that names a branch
 * (`kindOf` says which short names are branches or tags; a branch wins over a tag of the same
 * name), else a full commit id as the first segment. The rest is the path, which must be safe
 * (isSafePath). Null when no ref matches or the path is unsafe.
 */
export function splitRefAndPath(
  segments: string[],
  kindOf: (name: string) => "branch" | "tag" | null,
): RefAndPath | null {
  const found = refAtStart(segments, kindOf);
  if (!found) return null;
  const path = segments.slice(found.length);
  return isSafePath(path) ? { ref: found.ref, kind: found.kind, path } : null;
}

/**
 * The ref splitRefAndPath finds at the start of `segments` and how many segments it takes, whatever
 * follows (an unsafe path included); null when none does. A page whose address starts with no ref
 * can say so rather than that the path is not there.
 */
export function refAtStart(
  segments: string[],
  kindOf: (name: string) => "branch" | "tag" | null,
): { ref: string; kind: RefKind; length: number } | null {
  for (let n = segments.length; n >= 1; n--) {
    const name = segments.slice(0, n).join("/");
    const kind = kindOf(name);
    if (kind) return { ref: name, kind, length: n };
  }
  if (segments.length > 0 && isObjectId(segments[0])) {
    return { ref: segments[0], kind: "commit", length: 1 };
  }
  return null;
}

/** `segments` as one path (`a/b/c`; empty for the root). */
export function joinPath(segments: string[]): string {
  return segments.join("/");
}

/**
 * Resolves a link target written in a file at `fromDir` (a Markdown link such as `../docs/x.md`
 * or `/img/a.png`) to a path inside the repository: `..` never climbs above the root. Returns null
 * for targets that are not paths inside the repository (a scheme, `//host`, only a fragment).
 */
export function resolveRelative(
  fromDir: string[],
  target: string,
): { path: string[]; fragment: string } | null {
  if (target === "" || target.startsWith("#") || target.startsWith("//")) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null;
  const hash = target.indexOf("#");
  const fragment = hash >= 0 ? target.slice(hash) : "";
  let pathPart = hash >= 0 ? target.slice(0, hash) : target;
  const query = pathPart.indexOf("?");
  if (query >= 0) pathPart = pathPart.slice(0, query);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    decoded = pathPart;
  }
  const path = walkPath(decoded.startsWith("/") ? [] : fromDir, decoded, "stay at the root")!;
  return { path, fragment };
}

/**
 * Where a symbolic link in the directory `dir` points inside the repository (path segments), or
 * null when its target leaves it (an absolute path, or `..` past the root).
 */
export function symlinkTarget(dir: string[], target: string): string[] | null {
  return target.startsWith("/") ? null : walkPath(dir, target, "leave");
}

/**
 * `relative` (segments joined by `/`; empty ones and `.` skipped) walked from `from`; a `..` at the
 * root stays there, or makes the answer null (`leave`).
 */
function walkPath(
  from: string[],
  relative: string,
  pastRoot: "stay at the root" | "leave",
): string[] | null {
  const out = [...from];
  for (const s of relative.split("/")) {
    if (s === "" || s === ".") continue;
    if (s !== "..") out.push(s);
    else if (out.length > 0) out.pop();
    else if (pastRoot === "leave") return null;
  }
  return out;
}
