/**
 * The repository browser's routes on the hosting app, mounted after smart HTTP (whose paths end
 * in `info/refs` and `git-*-pack`, which no page uses):
 *
 * - `/explore`: every repository, most recently pushed first (what the logo leads to);
 * - `/<owner>`: the user's repositories;
 * - `/<owner>/<repo>`: the repository's home (`/<owner>/<repo>.git` redirects there);
 * - `/<owner>/<repo>/tree|blob|blame|raw|commits/<ref>[/<path>]`, `/commit/<id>[.patch]`,
 *   `/commits/<ref>.atom` and `/tags.atom` (feeds), `/tree-commits/<ref>[/<path>]` (JSON: each
 *   entry's last commit, for the tree page's script),
 *   `/archive/<ref>.tar.gz|.zip`, `/branches`, `/tags`,
 *   `/search?q=<text>[&ref=<ref>][&regex=1][&case=1]`,
 *   `/compare/<base>...<head>` (or `..`);
 *   an abbreviated commit id in place of `<ref>` or `<id>` redirects to the full id's URL
 *   (abbreviated.ts).
 *
 * Names are validated by the domain (protocol/names.ts); refs and paths by
 * server/domain/browse/paths.ts before git sees them. What does not exist is a 404 page to a
 * browser and JSON to anyone else. Pages are cached by repository state (page_cache.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Signet } from "../../context.ts";
import { DomainError } from "../../../protocol/errors.ts";
import { USERNAME_PATTERN, validateRepoName, validateUsername } from "../../../protocol/names.ts";
import { isCommit, openRepo, resolveRef, startsWithRefOf } from "../../domain/browse/refs.ts";
import { isObjectId, urlSegments } from "../../domain/browse/paths.ts";
import { formatPatch } from "../../domain/browse/commit.ts";
import { clientIp } from "../client_address.ts";
import { wantsHtml } from "../ui_static.ts";
import { pageNotFound } from "../not_found.ts";
import {
  EXPLORE_PATH,
  messagePage,
  notFoundPage,
  type Rendered,
  respond,
  TAGS_FEED,
} from "./frame.tsx";
import { type PageRequest, pageRequest } from "./context.ts";
import { PageCache } from "./page_cache.ts";
import { unknownRefPage } from "./missing_path.tsx";
import { aliasLocation } from "./aliases.ts";
import { renderOwner } from "./owner_page.tsx";
import { renderExplore } from "./explore_page.tsx";
import { renderRepoHome } from "./repo_home.tsx";
import { renderTree } from "./tree_page.tsx";
import { renderBlob } from "./blob_page.tsx";
import { renderBlame } from "./blame_page.tsx";
import { RAW_HEADERS, serveRaw } from "./raw.ts";
import { serveArchive } from "./archive.ts";
import { renderCommits } from "./commits_page.tsx";
import { commitsFeed, feedRef } from "./commits_feed.ts";
import { renderCommit } from "./commit_page.tsx";
import { renderRefs } from "./refs_page.tsx";
import { renderSearch } from "./search_page.tsx";
import { renderTreeCommits } from "./tree_commits.ts";
import { renderCompare } from "./compare_page.tsx";
import { tagsFeed } from "./tags_feed.ts";
import { ambiguousError, ambiguousPage, expandAbbreviatedId } from "./abbreviated.tsx";

/** The pages under `/<owner>/<repo>/`. */
const REF_PAGES = new Set(["tree", "blob", "blame", "raw", "commits", "tree-commits"]);

/**
 * Query parameters each page reads (others are ignored, and left out of the cache key, so they
 * cannot make a page be rendered again).
 */
const QUERY_KEYS: Record<string, string[]> = {
  "blob": ["plain"],
  "raw": ["download"],
  "commits": ["page"],
  "branches": ["page"],
  "tags": ["page"],
  "search": ["q", "ref", "regex", "case"],
};

/** Routes of the repository browser. */
export function browseRoutes(ctx: Signet): Hono {
  const app = new Hono();
  const cache = new PageCache(ctx.config.browseCacheBytes);

  // Before `/:owner`: a user named `explore` has no owner page (as `admin` or `api` have none).
  app.get(
    EXPLORE_PATH,
    (c) => answer(ctx, c, () => renderExplore(ctx, new URL(c.req.url).searchParams)),
  );

  app.get("/:owner", (c) =>
    answer(ctx, c, async () => {
      const owner = c.req.param("owner");
      validateUsername(owner);
      return await renderOwner(ctx, owner, new URL(c.req.url).searchParams);
    }));

  // `/<owner>/` (a trailing slash) is the owner's page.
  app.get("/:owner/", (c) => {
    const owner = c.req.param("owner");
    return c.redirect(`/${encodeURIComponent(owner)}`, 301);
  });

  app.get("/:owner/:repo", (c) => {
    const repo = c.req.param("repo");
    if (repo.endsWith(".git")) {
      return c.redirect(`/${c.req.param("owner")}/${encodeURIComponent(repo.slice(0, -4))}`, 301);
    }
    return repoPage(ctx, cache, c, [""]);
  });

  app.get("/:owner/:repo/*", (c) => {
    const parts = new URL(c.req.url).pathname.split("/").slice(3);
    return repoPage(ctx, cache, c, parts);
  });
  return app;
}

/** Runs `make`, turning domain errors into pages (a browser) or JSON (anyone else). */
async function answer(
  ctx: Signet,
  c: Context,
  make: () => Promise<Rendered | Response>,
): Promise<Response> {
  try {
    const r = await make();
    if (r instanceof Response) return r;
    // What is missing is an HTML page to a browser, JSON to anyone else (as on the rest of the app).
    if (r.status === 404 && !wantsHtml(c)) return c.json({ error: `${c.req.path} not found` }, 404);
    if (r.status === 400 && !wantsHtml(c)) return c.json({ error: r.error ?? "bad request" }, 400);
    return respond(r, c.req.method);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const status = err.kind === "invalid" ? 404 : err.kind === "not_found" ? 404 : null;
    if (!wantsHtml(c)) {
      if (status) return c.json({ error: err.message }, 404);
      throw err;
    }
    if (status) {
      // No such user: the app's own 404 page, as for any path nothing serves. A user's missing
      // repository: a 404 page leading to the user's list.
      const owner = c.req.param("owner") ?? "";
      if (!USERNAME_PATTERN.test(owner) || !(await ctx.store.users.findByName(owner))) {
        return await pageNotFound(c, err.message);
      }
      return respond(
        notFoundPage(c.req.path, { href: `/${owner}`, label: `Go to ${owner}'s repositories` }),
        c.req.method,
      );
    }
    if (err.kind === "unavailable") {
      return respond(
        messagePage(
          503,
          "Try again later",
          "Reading the repository took too long for",
          c.req.path,
          {
            href: c.req.path,
            label: "Try again",
          },
        ),
        c.req.method,
      );
    }
    throw err;
  }
}

/** A page of one repository: `parts` are the path's segments after `/<owner>/<repo>/`. */
function repoPage(ctx: Signet, cache: PageCache, c: Context, parts: string[]): Promise<Response> {
  return answer(ctx, c, async () => {
    const owner = validateUsername(c.req.param("owner"));
    const name = validateRepoName(c.req.param("repo"));
    if (name !== c.req.param("repo")) throw new DomainError("not_found", "not found");
    const client = clientIp(c);
    const repo = await openRepo(ctx, owner, name, client);
    const url = new URL(c.req.url);
    const query = new URLSearchParams();
    for (const k of QUERY_KEYS[parts[0] ?? ""] ?? []) {
      const v = url.searchParams.get(k);
      if (v !== null) query.set(k, v);
    }
    const req = pageRequest(ctx, repo, client, query);
    const [page = "", ...rest] = parts;
    const expanded = await expandAbbreviatedId(req, page, rest, url.search);
    if (expanded && "location" in expanded) {
      return new Response(null, { status: 302, headers: { Location: expanded.location } });
    }
    if (expanded) {
      if (!wantsHtml(c)) return c.json({ error: ambiguousError(expanded.ambiguous) }, 404);
      return await ambiguousPage(req, expanded.ambiguous);
    }
    const alias = aliasLocation(req, page, rest);
    if (alias) {
      return new Response(null, { status: 302, headers: { Location: `${alias}${url.search}` } });
    }
    if (page === "raw") return await raw(req, rest, c.req.method, c.req.header("sec-fetch-dest"));
    if (page === "archive") {
      return await serveArchive(req, rest, c.req.method) ??
        missing(req, `${owner}/${name}/archive/${rest.join("/")}`);
    }
    const feedSegments = page === "commits" ? feedRef(rest) : null;
    if (feedSegments) {
      const answer = await feed(req, rest, feedSegments);
      if (answer) return answer;
    }
    if (page === TAGS_FEED && rest.length === 0) return await tagsFeed(req);
    if (page === "commit" && rest.length === 1 && rest[0].endsWith(".patch")) {
      return await patch(req, rest[0].slice(0, -6));
    }
    const key = `${repo.row.id}\0${repo.state}\0${url.pathname}\0${query}`;
    return await cache.get(key, () => render(req, page, rest));
  });
}

function missing(req: PageRequest, what: string): Rendered {
  return notFoundPage(what, { href: req.urls.base, label: "Go to the repository" });
}

/** Renders the page `page` (`""` the home) with the segments after it. */
async function render(req: PageRequest, page: string, rest: string[]): Promise<Rendered> {
  const { repo } = req;
  const label = `${repo.row.owner}/${repo.row.name}/${[page, ...rest].join("/")}`;
  if (page === "" && rest.length === 0) return await renderRepoHome(req);
  if ((page === "branches" || page === "tags") && rest.length === 0) return renderRefs(req, page);
  if (page === "search" && rest.length === 0) return await renderSearch(req);
  if (page === "compare" && rest.length > 0) return await renderCompare(req, rest);
  if (page === "commit" && rest.length === 1 && isObjectId(rest[0])) {
    return (await renderCommit(req, rest[0])) ?? missing(req, label);
  }
  if (!REF_PAGES.has(page)) return missing(req, label);
  const segments = urlSegments(rest.join("/"));
  const at = segments && await resolveRef(req.ctx, repo, segments, req.client);
  if (!at) {
    return segments && !startsWithRefOf(repo, segments)
      ? unknownRefPage(req, segments)
      : missing(req, label);
  }
  if (page === "tree") return await renderTree(req, at);
  if (page === "blob") return await renderBlob(req, at);
  if (page === "blame") return await renderBlame(req, at);
  if (page === "tree-commits") return (await renderTreeCommits(req, at)) ?? missing(req, label);
  return await renderCommits(req, at);
}

async function raw(
  req: PageRequest,
  rest: string[],
  method: string,
  fetchDest: string | undefined,
): Promise<Response | Rendered> {
  const segments = urlSegments(rest.join("/"));
  const at = segments && await resolveRef(req.ctx, req.repo, segments, req.client);
  const label = `${req.repo.row.owner}/${req.repo.row.name}/raw/${rest.join("/")}`;
  if (!at) return missing(req, label);
  return (await serveRaw(req, at, method, fetchDest ?? null)) ?? missing(req, label);
}

/**
 * The Atom feed `commits/<ref>.atom` (`feedSegments`: `rest` without `.atom`), or null when that
 * is a page: the path names a ref as it stands (a branch called `x.atom`), or, when no ref is named
 * before `.atom`, a file's history.
 */
async function feed(
  req: PageRequest,
  rest: string[],
  feedSegments: string[],
): Promise<Response | Rendered | null> {
  const asIs = urlSegments(rest.join("/"));
  const page = asIs && await resolveRef(req.ctx, req.repo, asIs, req.client);
  if (page && page.path.length === 0) return null;
  const segments = urlSegments(feedSegments.join("/"));
  const at = segments && await resolveRef(req.ctx, req.repo, segments, req.client);
  if (at && at.path.length === 0) return await commitsFeed(req, at);
  if (page) return null;
  return missing(req, `${req.repo.row.owner}/${req.repo.row.name}/commits/${rest.join("/")}`);
}

async function patch(req: PageRequest, id: string): Promise<Response | Rendered> {
  const label = `${req.repo.row.owner}/${req.repo.row.name}/commit/${id}.patch`;
  if (!await isCommit(req.ctx, req.repo, id, req.client)) return missing(req, label);
  const body = await formatPatch(req.ctx, req.repo, id, req.client);
  if (!body) {
    return messagePage(413, "Patch too large", "The patch is too large to serve:", label, {
      href: req.urls.commit(id),
      label: "Go to the commit",
    });
  }
  return new Response(body as Uint8Array<ArrayBuffer>, {
    headers: { ...RAW_HEADERS, "Content-Type": "text/plain; charset=utf-8" },
  });
}
