/**
 * `/<owner>/<repo>/search?q=<text>[&ref=<ref>][&regex=1][&case=1]`: the text files of a branch, tag
 * or commit (the default branch unless `ref` names one, written as in a path: frame.tsx's refParam)
 * searched for a plain string, or a POSIX extended regular expression with `regex=1`, ASCII letters
 * in either case unless `case=1` (server/domain/browse/grep.ts). Each file with its first matching
 * lines, each line linking to that line where the file's page has line anchors (a Markdown file's
 * source view, `?plain=1`; a file too large to show has none: its page alone); the matches marked,
 * bidi controls shown, not applied. Without `q`, the form alone.
 */
import type { ComponentChildren, VNode } from "preact";
import { DomainError } from "../../../protocol/errors.ts";
import {
  grep,
  type GrepFile,
  type GrepLine,
  type GrepOptions,
  type GrepResult,
  LINES_PER_FILE,
  MAX_FILES,
} from "../../domain/browse/grep.ts";
import { type Resolved, resolveRef } from "../../domain/browse/refs.ts";
import { checkObjects } from "../../domain/browse/git_read.ts";
import { MAX_SHOWN_BYTES } from "../../domain/browse/blob.ts";
import { urlSegments } from "../../domain/browse/paths.ts";
import type { PageRequest } from "./context.ts";
import { expandName, redirectTo } from "./abbreviated.tsx";
import { BidiNotice, imageType } from "./blob_page.tsx";
import { isMarkdown } from "./markdown.ts";
import { hasBidi } from "./highlight.ts";
import { type Matches, matchesOf } from "./search_marks.ts";
import {
  bidiMarked,
  messagePage,
  Name,
  notFoundPage,
  page,
  refParam,
  type Rendered,
  RepoBar,
} from "./frame.tsx";

/** Characters of a long line shown around its first match. */
const SHOWN_CHARS = 240;

/** The search page. */
export async function renderSearch(req: PageRequest): Promise<Rendered> {
  const { repo, urls } = req;
  const options: GrepOptions = {
    regex: req.query.get("regex") === "1",
    matchCase: req.query.get("case") === "1",
  };
  const refName = req.query.get("ref") ?? repo.refs.defaultBranch;
  if (refName === null) {
    return messagePage(200, "Nothing to search", "There are no files yet in", repo.row.name, {
      href: urls.base,
      label: "Go to the repository",
    });
  }
  // Written as in a path (frame.tsx's refParam): `feature/x`, segments percent-encoded.
  const segments = urlSegments(refName);
  const at = segments && await resolveRef(req.ctx, repo, segments, req.client);
  if (!at) {
    // An abbreviated commit id: the same search at the full id.
    const full = await expandName(req, refName);
    if (full !== null && full !== "ambiguous") {
      return redirectTo(urls.search(req.query.get("q") ?? "", full, options));
    }
  }
  if (!at || at.path.length > 0) {
    return notFoundPage(`${repo.row.owner}/${repo.row.name} at ${refName}`, {
      href: urls.base,
      label: "Go to the repository",
    });
  }
  const query = req.query.get("q");
  if (query === null || query === "") return searchPage(req, at, "", options, null);
  let results: GrepResult;
  try {
    results = await grep(req.ctx, repo, at.commit, query, options, req.client);
  } catch (err) {
    // A query grep refuses (checkQuery, or a pattern git cannot read): the form, saying why.
    if (err instanceof DomainError && err.kind === "invalid") {
      return searchPage(req, at, query, options, { problem: err.message });
    }
    throw err;
  }
  const links = await lineLinks(req, at, results.files);
  return searchPage(req, at, query, options, results, links);
}

/**
 * Where a hit's line number leads: that line of the file's page (`#L12`), of its source
 * (`?plain=1#L12`: a Markdown file's page shows it rendered, without line anchors), or the file's
 * page alone (a file too large to show, or an image: no lines there).
 */
type LineLink = "line" | "source" | "file";

/** Each found file's LineLink, by path; the sizes from one `git cat-file --batch-check`. */
async function lineLinks(
  req: PageRequest,
  at: Resolved,
  files: GrepFile[],
): Promise<Map<string, LineLink>> {
  const infos = files.length === 0 ? [] : await checkObjects(
    req.ctx,
    req.repo.dir,
    files.map((f) => `${at.commit}:${f.path}`),
    { maxBytes: 1024 * 1024, client: req.client },
  );
  return new Map(files.map((f, i): [string, LineLink] => {
    const info = infos[i];
    const name = f.path.slice(f.path.lastIndexOf("/") + 1);
    if (typeof info === "object" && info.size > MAX_SHOWN_BYTES) return [f.path, "file"];
    if (imageType(name)) return [f.path, "file"];
    return [f.path, isMarkdown(name) ? "source" : "line"];
  }));
}

function searchPage(
  req: PageRequest,
  at: Resolved,
  query: string,
  options: GrepOptions,
  found: GrepResult | { problem: string } | null,
  links = new Map<string, LineLink>(),
): Rendered {
  const { urls, repo } = req;
  const problem = found && "problem" in found ? found.problem : null;
  const results = found && "files" in found ? found : null;
  const title = query ? `Search for “${query}” at ${at.ref}` : `Search the files at ${at.ref}`;
  const matches = results ? matchesOf(query, options) : null;
  const rendered = page(
    `${title} · ${repo.row.owner}/${repo.row.name}`,
    <>
      <RepoBar
        repo={repo}
        tab="code"
        gitRef={at.ref}
        link={(ref) => urls.search(query, ref === repo.refs.defaultBranch ? null : ref, options)}
        searchBox={false}
      >
        <form class="search-form" role="search" action={urls.search()} method="get">
          <label class="visually-hidden" for="search-q">Search the files</label>
          <input
            id="search-q"
            class="input"
            type="search"
            name="q"
            value={query}
            placeholder={options.regex ? "Pattern to find" : "Text to find"}
            aria-invalid={problem ? "true" : undefined}
            aria-describedby={problem ? "search-problem" : undefined}
          />
          {at.ref !== repo.refs.defaultBranch && (
            <input type="hidden" name="ref" value={refParam(at.ref)} />
          )}
          <label class="search-option">
            <input type="checkbox" name="regex" value="1" checked={options.regex} />{" "}
            Regular expression
          </label>
          <label class="search-option">
            <input type="checkbox" name="case" value="1" checked={options.matchCase} /> Match case
          </label>
          <button class="btn btn-primary" type="submit">Search</button>
        </form>
      </RepoBar>
      {problem && <p id="search-problem" class="notice notice-danger">{`${problem}.`}</p>}
      {results && <Summary files={results.files} cut={results.cut} />}
      {results?.files.some((f) => f.lines.some((l) => hasBidi(l.text))) && <BidiNotice />}
      {matches &&
        results?.files.map((f) => (
          <FileMatches
            key={f.path}
            req={req}
            at={at}
            file={f}
            matches={matches}
            link={links.get(f.path) ?? "line"}
          />
        ))}
    </>,
    problem ? 400 : 200,
  );
  if (problem) return { ...rendered, error: problem };
  return results?.timedOut ? { ...rendered, partial: true } : rendered;
}

function Summary({ files, cut }: { files: GrepFile[]; cut: boolean }): VNode {
  if (files.length === 0) return <p class="muted">No text file here holds that.</p>;
  const lines = files.reduce((n, f) => n + f.lines.length, 0);
  const more = files.some((f) => f.more);
  return (
    <p class="muted" role="status">
      {`${lines}${more ? "+" : ""} matching line${lines === 1 ? "" : "s"} in ${files.length} file${
        files.length === 1 ? "" : "s"
      }`}
      {cut &&
        `; only the first ${MAX_FILES} files or what fitted in time are shown: search for more`}
      {more && `; at most ${LINES_PER_FILE} lines a file`}
    </p>
  );
}

function FileMatches(
  { req, at, file, matches, link }: {
    req: PageRequest;
    at: Resolved;
    file: GrepFile;
    matches: Matches;
    link: LineLink;
  },
): VNode {
  const path = file.path.split("/");
  const blob = req.urls.at("blob", at.ref, path);
  const lineHref = (n: number) =>
    link === "file" ? blob : link === "source" ? `${blob}?plain=1#L${n}` : `${blob}#L${n}`;
  return (
    <section class="box search-file">
      <h2 class="box-head">
        <a href={blob}>
          <Name text={file.path} />
        </a>
      </h2>
      <ol class="search-lines">
        {file.lines.map((l) => (
          <li>
            <a class="line-no" href={lineHref(l.number)} aria-label={`Line ${l.number}`}>
              {l.number}
            </a>
            <code>{markedLine(l, matches)}</code>
          </li>
        ))}
      </ol>
      {file.more && (
        <p class="search-more">
          <a href={blob}>More matches in this file</a>
        </p>
      )}
    </section>
  );
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

// The UTF-16 index in `text` of the character at UTF-8 byte `offset`.
function indexOfByte(text: string, offset: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    if (bytes >= offset) return i;
    const code = text.codePointAt(i)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (code > 0xffff) i++;
  }
  return text.length;
}

// A long line cut to about SHOWN_CHARS around `first` (never inside a character): where the shown
// part starts and ends.
function shown(text: string, first: number): { from: number; to: number } {
  if (text.length <= SHOWN_CHARS) return { from: 0, to: text.length };
  let start = Math.max(0, Math.min(first - SHOWN_CHARS / 3, text.length - SHOWN_CHARS));
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  let end = Math.min(text.length, start + SHOWN_CHARS);
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return { from: start, to: end };
}

// The shown part of a line (around its first match, git's column) with each match in it in a
// <mark>, bidi controls shown as marks, not applied; an ellipsis where the line goes on.
function markedLine(line: GrepLine, matches: Matches): ComponentChildren[] {
  const { text } = line;
  const { from, to } = shown(text, indexOfByte(text, line.column - 1));
  const part = text.slice(from, to);
  const out: ComponentChildren[] = [from > 0 ? "…" : ""];
  let last = 0;
  for (const [start, end] of matches(part)) {
    out.push(
      bidiMarked(part.slice(last, start)),
      <mark>{bidiMarked(part.slice(start, end))}</mark>,
    );
    last = end;
  }
  out.push(bidiMarked(part.slice(last)), to < text.length ? "…" : "");
  return out;
}
