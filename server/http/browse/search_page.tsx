/**
 * `/<owner>/<repo>/search?q=<text>[&ref=<ref>]`: the text files of a branch, tag or commit (the
 * default branch unless `ref` names one, written as in a path: frame.tsx's refParam) searched for a
 * plain string, ASCII letters in either case (server/domain/browse/grep.ts). Each file with its
 * first matching lines, each line linking to that line of the file; the matches marked, bidi
 * controls shown, not applied. Without `q`, the form alone.
 */
import type { ComponentChildren, VNode } from "preact";
import { DomainError } from "../../../protocol/errors.ts";
import {
  grep,
  type GrepFile,
  type GrepResult,
  LINES_PER_FILE,
  MAX_FILES,
} from "../../domain/browse/grep.ts";
import { type Resolved, resolveRef } from "../../domain/browse/refs.ts";
import { urlSegments } from "../../domain/browse/paths.ts";
import type { PageRequest } from "./context.ts";
import { expandName, redirectTo } from "./abbreviated.tsx";
import { BidiNotice } from "./blob_page.tsx";
import { hasBidi } from "./highlight.ts";
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
      return redirectTo(urls.search(req.query.get("q") ?? "", full));
    }
  }
  if (!at || at.path.length > 0) {
    return notFoundPage(`${repo.row.owner}/${repo.row.name} at ${refName}`, {
      href: urls.base,
      label: "Go to the repository",
    });
  }
  const query = req.query.get("q");
  if (query === null || query === "") return searchPage(req, at, "", null);
  let results: GrepResult;
  try {
    results = await grep(req.ctx, repo, at.commit, query, req.client);
  } catch (err) {
    // A query grep refuses (checkQuery, before git runs): the form again, saying why.
    if (err instanceof DomainError && err.kind === "invalid") {
      return searchPage(req, at, query, { problem: err.message });
    }
    throw err;
  }
  return searchPage(req, at, query, results);
}

function searchPage(
  req: PageRequest,
  at: Resolved,
  query: string,
  found: GrepResult | { problem: string } | null,
): Rendered {
  const { urls, repo } = req;
  const problem = found && "problem" in found ? found.problem : null;
  const results = found && "files" in found ? found : null;
  const title = query ? `Search for “${query}” at ${at.ref}` : `Search the files at ${at.ref}`;
  const rendered = page(
    `${title} · ${repo.row.owner}/${repo.row.name}`,
    <>
      <RepoBar
        repo={repo}
        tab="code"
        gitRef={at.ref}
        link={(ref) => urls.search(query, ref === repo.refs.defaultBranch ? null : ref)}
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
            placeholder="Text to find (A–Z in either case)"
            aria-invalid={problem ? "true" : undefined}
            aria-describedby={problem ? "search-problem" : undefined}
          />
          {at.ref !== repo.refs.defaultBranch && (
            <input type="hidden" name="ref" value={refParam(at.ref)} />
          )}
          <button class="btn btn-primary" type="submit">Search</button>
        </form>
      </RepoBar>
      {problem && <p id="search-problem" class="notice notice-danger">{`${problem}.`}</p>}
      {results && <Summary files={results.files} cut={results.cut} />}
      {results?.files.some((f) => f.lines.some((l) => hasBidi(l.text))) && <BidiNotice />}
      {results?.files.map((f) => (
        <FileMatches key={f.path} req={req} at={at} file={f} query={query} />
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
  { req, at, file, query }: { req: PageRequest; at: Resolved; file: GrepFile; query: string },
): VNode {
  const path = file.path.split("/");
  const blob = req.urls.at("blob", at.ref, path);
  const match = matcher(query);
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
            <a class="line-no" href={`${blob}#L${l.number}`} aria-label={`Line ${l.number}`}>
              {l.number}
            </a>
            <code>{marked(shown(l.text, match), match)}</code>
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

/**
 * The matches of `query` as git finds them: its ASCII letters in either case (git's `-i` under the
 * C locale, which reads set), every other character as itself.
 */
function matcher(query: string): RegExp {
  const source = [...query].map((ch) =>
    /[a-z]/i.test(ch)
      ? `[${ch.toLowerCase()}${ch.toUpperCase()}]`
      : ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
  ).join("");
  return new RegExp(source, "gu");
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

// A long line cut to about SHOWN_CHARS around its first match (never inside a character).
function shown(text: string, match: RegExp): string {
  if (text.length <= SHOWN_CHARS) return text;
  match.lastIndex = 0;
  const at = match.exec(text)?.index ?? 0;
  let start = Math.max(0, Math.min(at - SHOWN_CHARS / 3, text.length - SHOWN_CHARS));
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  let end = Math.min(text.length, start + SHOWN_CHARS);
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

// `text` with each match in a <mark>, bidi controls shown as marks, not applied.
function marked(text: string, match: RegExp): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  match.lastIndex = 0;
  for (const m of text.matchAll(match)) {
    if (m[0] === "") break;
    out.push(bidiMarked(text.slice(last, m.index)), <mark>{bidiMarked(m[0])}</mark>);
    last = m.index + m[0].length;
  }
  out.push(bidiMarked(text.slice(last)));
  return out;
}
