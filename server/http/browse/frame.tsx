/**
 * What every page of the repository browser shares: the HTML frame (the `browse` stylesheet and
 * script from ui/generated, no inline script or style, the UI's CSP), the repository header with
 * its tabs, the ref selector, breadcrumbs, names shown safely, and URL building.
 */
import type { GrepOptions } from "../../domain/browse/grep.ts";
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { UI_PAGES } from "../../../ui/generated/assets.ts";
import { Logo } from "../../../ui/common/icons.tsx";
import { NotFound } from "../../../ui/common/not_found.tsx";
import { htmlPageHeaders } from "../ui_static.ts";
import type { BrowseRepo, RefInfo } from "../../domain/browse/refs.ts";
import { BIDI_CONTROLS } from "./highlight.ts";

const shell = UI_PAGES.browse;
const CSS = /href="(\/assets\/browse-[0-9a-f]+\.css)"/.exec(shell)![1];
const JS = /src="(\/assets\/browse-[0-9a-f]+\.js)"/.exec(shell)![1];
const ICON = /href="(\/assets\/icon-[0-9a-f]+\.svg)"/.exec(shell)![1];

/** A rendered page: what the cache keeps and the response is made of. */
export interface Rendered {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** What a 400 page says was wrong (what a client other than a browser gets, as JSON). */
  error?: string;
  /** Shows what a read found before its time ran out: not kept, the next request reads again. */
  partial?: boolean;
}

/**
 * A name for where no markup can go (a title, an attribute): each bidi control written out as
 * `<U+202E>`, so it reorders nothing.
 */
export function plain(text: string): string {
  return text.replace(
    BIDI_CONTROLS,
    (ch) => `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}

/** The whole HTML document: `title`, then `children` in main. */
export function page(
  title: string,
  children: ComponentChildren,
  status = 200,
  /** A feed of the page's content, for feed readers to discover (`<link rel="alternate">`). */
  feed?: { href: string; title: string },
): Rendered {
  const body = renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${plain(title)} · Signet`}</title>
        <link rel="icon" type="image/svg+xml" href={ICON} />
        <link rel="stylesheet" href={CSS} />
        {feed && (
          <link
            rel="alternate"
            type="application/atom+xml"
            href={feed.href}
            title={plain(feed.title)}
          />
        )}
        <script type="module" src={JS} />
      </head>
      <body>
        <a href="#main" class="skip-link">Skip to content</a>
        <header class="topbar">
          <div class="topbar-inner container">
            <a href={EXPLORE_PATH} class="brand">
              <Logo />
              <span class="brand-name">Signet</span>
              <span class="brand-tag">Code</span>
            </a>
          </div>
        </header>
        <main id="main" class="container main" tabIndex={-1}>{children}</main>
      </body>
    </html>,
  );
  return { status, body: `<!doctype html>\n${body}` };
}

/** Each rendered page's length in bytes, measured once: a cached page is answered many times. */
const pageLengths = new WeakMap<Rendered, number>();

/**
 * The response of a rendered page. Its length is stated, so that a HEAD (whose body is dropped)
 * tells the page's size rather than 0; compression replaces it on the way out.
 */
export function respond(r: Rendered, method = "GET"): Response {
  let length = pageLengths.get(r);
  if (length === undefined) pageLengths.set(r, length = new TextEncoder().encode(r.body).length);
  return new Response(method === "HEAD" ? null : r.body, {
    status: r.status,
    headers: {
      ...htmlPageHeaders("browse"),
      ...r.headers,
      "Content-Length": String(length),
    },
  });
}

/**
 * A name from a repository (file, branch, tag, author): isolated with `<bdi>`, each bidi control
 * in it shown as a visible mark instead of reordering the text around it.
 */
export function Name({ text }: { text: string }): VNode {
  return <bdi>{bidiMarked(text)}</bdi>;
}

/** `text` with each bidi control shown as a visible mark (`U+202E`) instead of applied. */
export function bidiMarked(text: string): ComponentChildren {
  BIDI_CONTROLS.lastIndex = 0;
  if (!BIDI_CONTROLS.test(text)) return text;
  BIDI_CONTROLS.lastIndex = 0;
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(BIDI_CONTROLS)) {
    parts.push(text.slice(last, m.index));
    const code = `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    parts.push(<span class="bidi-mark" title={`bidirectional control ${code}`}>{code}</span>);
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

/**
 * A ref as a query parameter's value: written as in a URL's path (`feature/x`, each segment
 * percent-encoded), so a name with controls or quotes never appears raw in a form's field.
 */
export function refParam(ref: string): string {
  return encodePath(ref.split("/"));
}

/** Percent-encodes each segment of a ref or path (slashes kept between segments). */
export function encodePath(segments: string[]): string {
  return segments.map(encodeURIComponent).join("/");
}

/** The page listing every repository (`/explore`), where the logo leads. */
export const EXPLORE_PATH = "/explore";

/** The tags feed's path segment under a repository's (GitHub's address). */
export const TAGS_FEED = "tags.atom";

/** URLs of one repository's pages. */
export class RepoUrls {
  readonly base: string;
  constructor(readonly owner: string, readonly name: string) {
    this.base = `/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  }
  /** `/<owner>/<repo>/<page>/<ref>/<path>`. */
  at(page: string, ref: string, path: string[] = []): string {
    const refPart = encodePath(ref.split("/"));
    return `${this.base}/${page}/${refPart}${path.length ? `/${encodePath(path)}` : ""}`;
  }
  commit(id: string): string {
    return `${this.base}/commit/${id}`;
  }
  /**
   * `/<owner>/<repo>/search[?q=…&ref=…&regex=1&case=1]`: code search (`ref` left out for the
   * default branch; it is written as in a path, see refParam).
   */
  search(query = "", ref: string | null = null, options?: GrepOptions): string {
    const params = new URLSearchParams();
    if (query) params.set("q", query);
    if (ref !== null) params.set("ref", refParam(ref));
    if (options?.regex) params.set("regex", "1");
    if (options?.matchCase) params.set("case", "1");
    const text = params.toString();
    return `${this.base}/search${text ? `?${text}` : ""}`;
  }
  /** `/<owner>/<repo>/compare/<base>...<head>` (`direct`: `..`), refs written as in a path. */
  compare(base: string, head: string, direct = false): string {
    return `${this.base}/compare/${refParam(base)}${direct ? ".." : "..."}${refParam(head)}`;
  }
  /** `/<owner>/<repo>/tags.atom`: the feed of the newest tags. */
  tagsFeed(): string {
    return `${this.base}/${TAGS_FEED}`;
  }
  /** `/<owner>/<repo>/archive/<ref>.<format>`: the ref's files as one download. */
  archive(ref: string, format: "tar.gz" | "zip"): string {
    return `${this.base}/archive/${encodePath(ref.split("/"))}.${format}`;
  }
}

/** Links to a ref's archives (`tar.gz · zip`), each named in full for screen readers. */
export function ArchiveLinks({ urls, gitRef }: { urls: RepoUrls; gitRef: string }): VNode {
  return (
    <span class="archive-links">
      <a href={urls.archive(gitRef, "tar.gz")} aria-label={`Download ${plain(gitRef)} as .tar.gz`}>
        tar.gz
      </a>
      {" · "}
      <a href={urls.archive(gitRef, "zip")} aria-label={`Download ${plain(gitRef)} as .zip`}>zip</a>
    </span>
  );
}

/**
 * A page's title within a repository, as GitHub writes it: `what · owner/repo`, or the
 * repository's name alone. (`page` adds ` · Signet`.)
 */
export function repoTitle(repo: BrowseRepo, what?: string): string {
  const name = `${repo.row.owner}/${repo.row.name}`;
  return what ? `${what} · ${name}` : name;
}

/** A URL's ref as a title names it: a branch or tag as it is, a commit id by its first 10 digits. */
export function titleRef(at: { ref: string; kind: string }): string {
  return at.kind === "commit" ? at.ref.slice(0, 10) : at.ref;
}

/** Unix seconds as `2026-11-26 22:01 UTC` in a `<time>`. */
export function When({ unix }: { unix: number | null }): VNode {
  if (!unix) return <span class="muted">—</span>;
  const iso = new Date(unix * 1000).toISOString();
  return <time dateTime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
}

/** A byte count as `12.3 KB`. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Which tab of the repository header is current. */
export type RepoTab = "code" | "commits" | "branches" | "tags";

/** The repository's name (owner / repo) and its tabs (props never say `ref`: Preact takes it). */
export function RepoHeader(
  { repo, tab, gitRef, searchBox = true }: {
    repo: BrowseRepo;
    tab: RepoTab;
    gitRef?: string | null;
    /** The header's code search box (the search page has its own form). */
    searchBox?: boolean;
  },
): VNode {
  const urls = new RepoUrls(repo.row.owner, repo.row.name);
  const current = (t: RepoTab) => (t === tab ? "page" : undefined);
  const historyRef = gitRef ?? repo.refs.defaultBranch;
  return (
    <div class="repo-head">
      <div class="repo-head-top">
        <h1 class="repo-title">
          <a href={`/${encodeURIComponent(repo.row.owner)}`}>{repo.row.owner}</a>
          {" / "}
          <a href={urls.base}>
            <strong>{repo.row.name}</strong>
          </a>
        </h1>
        {repo.refs.defaultBranch !== null && searchBox && (
          <form class="repo-search" role="search" action={urls.search()} method="get">
            <input
              class="input"
              type="search"
              name="q"
              aria-label={`Search the files of ${repo.row.name}`}
              placeholder="Search code"
            />
            {gitRef && gitRef !== repo.refs.defaultBranch && (
              <input type="hidden" name="ref" value={refParam(gitRef)} />
            )}
          </form>
        )}
      </div>
      <nav class="repo-tabs" aria-label="Repository">
        <a href={urls.base} aria-current={current("code")}>Code</a>
        {historyRef && (
          <a href={urls.at("commits", historyRef)} aria-current={current("commits")}>Commits</a>
        )}
        <a href={`${urls.base}/branches`} aria-current={current("branches")}>
          Branches<span class="count">{repo.refs.branches.length}</span>
        </a>
        <a href={`${urls.base}/tags`} aria-current={current("tags")}>
          Tags<span class="count">{repo.refs.tags.length}</span>
        </a>
      </nav>
    </div>
  );
}

/** Refs listed in the ref selector, per kind. */
const MENU_REFS = 50;

/**
 * The ref selector: a `<details>` menu (works without script, with the keyboard) of branches and
 * tags, each linking to the same page and path at that ref.
 */
export function RefSelect(
  { repo, current, link }: {
    repo: BrowseRepo;
    current: string;
    link: (ref: string) => string;
  },
): VNode {
  const kind = repo.refs.byName.get(current)?.kind;
  const label = kind === "tag" ? "Tag" : kind === "branch" ? "Branch" : "Commit";
  const shown = kind ? current : current.slice(0, 12);
  // A tag naming no commit (a blob, a tree) has no pages to switch to.
  const list = (title: string, all: RefInfo[], refs = all.filter((r) => r.commit !== null)) =>
    refs.length > 0 && (
      <>
        <h2>{title}</h2>
        <ul>
          {refs.slice(0, MENU_REFS).map((r) => (
            <li>
              <a href={link(r.name)} aria-current={r.name === current ? "true" : undefined}>
                <Name text={r.name} />
              </a>
            </li>
          ))}
        </ul>
      </>
    );
  return (
    <details class="ref-select">
      <summary class="btn btn-secondary btn-sm" title={`${label}: ${plain(shown)}`}>
        <span class="ref-kind">{label}:</span>
        <span class="ref-name">
          <Name text={shown} />
        </span>
      </summary>
      <div class="ref-menu">
        {list("Branches", repo.refs.branches)}
        {list("Tags", repo.refs.tags)}
      </div>
    </details>
  );
}

/**
 * The repository header at `gitRef` (tab `tab`), then the toolbar under it: the ref selector, each
 * ref linking to `link(ref)`, then `children`.
 */
export function RepoBar(
  { repo, tab, gitRef, link, searchBox, children }: {
    repo: BrowseRepo;
    tab: RepoTab;
    gitRef: string;
    link: (ref: string) => string;
    searchBox?: boolean;
    children?: ComponentChildren;
  },
): VNode {
  return (
    <>
      <RepoHeader repo={repo} tab={tab} gitRef={gitRef} searchBox={searchBox} />
      <div class="toolbar">
        <RefSelect repo={repo} current={gitRef} link={link} />
        {children}
      </div>
    </>
  );
}

/** Breadcrumbs: the repository, then each directory of `path`; the last one is the current page. */
export function Crumbs(
  { repo, gitRef: ref, path }: { repo: BrowseRepo; gitRef: string; path: string[] },
): VNode {
  const urls = new RepoUrls(repo.row.owner, repo.row.name);
  return (
    <nav class="crumbs" aria-label="Breadcrumb">
      <ol>
        <li>
          {path.length === 0
            ? <span aria-current="page">{repo.row.name}</span>
            : <a href={urls.at("tree", ref)}>{repo.row.name}</a>}
        </li>
        {path.map((seg, i) => (
          <li>
            {i === path.length - 1
              ? (
                <span aria-current="page">
                  <Name text={seg} />
                </span>
              )
              : (
                <a href={urls.at("tree", ref, path.slice(0, i + 1))}>
                  <Name text={seg} />
                </a>
              )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** A line of text with a copy button (shown by the page script; hidden without it). */
export function CopyLine({ id, label, text }: { id: string; label?: string; text: string }) {
  return (
    <div class="clone-line">
      {label && <span class="label">{label}</span>}
      <code id={id} class="mono">{text}</code>
      <button
        type="button"
        class="btn btn-secondary btn-sm copy-btn"
        data-copy={id}
        hidden
        aria-label={`Copy ${label ?? "text"}`}
      >
        Copy
      </button>
    </div>
  );
}

/** The page for something that does not exist: status 404, what was looked for, a way back. */
export function notFoundPage(what: string, back: { href: string; label: string }): Rendered {
  return messagePage(404, "Page not found", "There is nothing at", what, back);
}

/**
 * The public site's 404 for `path` (a page nothing serves, a user that does not exist), leading to
 * the list of repositories.
 */
export function publicNotFound(path: string, method = "GET"): Response {
  return respond(notFoundPage(path, { href: EXPLORE_PATH, label: "Explore repositories" }), method);
}

/** A page that says why something cannot be shown (`status`), with a way back. */
export function messagePage(
  status: number,
  title: string,
  lead: string,
  what: string,
  back: { href: string; label: string },
): Rendered {
  return page(
    title,
    <NotFound path={what} title={title} lead={lead} shown={<Name text={what} />}>
      <a class="btn btn-secondary" href={back.href}>{back.label}</a>
    </NotFound>,
    status,
  );
}
