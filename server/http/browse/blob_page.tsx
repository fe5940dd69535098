/**
 * `/<owner>/<repo>/blob/<ref>/<path>`: one file. Text with line numbers, `#L10-L20` anchors and
 * server-side highlighting (and a link to its blame); Markdown rendered (`?plain=1` shows its source); images shown from
 * `/raw/`; binary files and files over MAX_SHOWN_BYTES offered as a download instead.
 */
import { joinPath, symlinkTarget } from "../../domain/browse/paths.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import type { VNode } from "preact";
import {
  type BlobResult,
  looksBinary,
  MAX_SHOWN_BYTES,
  readBlob,
} from "../../domain/browse/blob.ts";
import { entryMode, SYMLINK_MODE } from "../../domain/browse/tree.ts";
import type { PageRequest } from "./context.ts";
import {
  bytes,
  Crumbs,
  Name,
  notFoundPage,
  page,
  plain,
  type Rendered,
  RepoBar,
  repoTitle,
  titleRef,
} from "./frame.tsx";
import { hasBidi, highlightLines, languageOf, MAX_HIGHLIGHT_BYTES } from "./highlight.ts";
import { codeTable } from "./code_view.ts";
import { missingPathPage } from "./missing_path.tsx";
import { markdownHtml } from "./readme.tsx";
import { isMarkdown } from "./markdown.ts";

/** Image types shown in the page (served by /raw/ with their own type); never SVG. */
export const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  bmp: "image/bmp",
  ico: "image/x-icon",
};

/** Whether a file name is an SVG's (drawn only as an image: raw.ts). */
export function isSvg(name: string): boolean {
  return /\.svg$/i.test(name);
}

/** The image type of a file name, or null. */
export function imageType(name: string): string | null {
  const ext = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  return Object.hasOwn(IMAGE_TYPES, ext) ? IMAGE_TYPES[ext] : null;
}

/** The file a file's page (its content, its blame) shows: its path, name and blob. */
export interface FileAt {
  path: string;
  name: string;
  blob: Extract<BlobResult, { kind: "blob" }>;
}

/**
 * The file at `at` for a file's page, or the answer instead: a redirect to the tree page for a
 * directory, a 404 for the root or a path that is not there.
 */
export async function fileAt(
  req: PageRequest,
  at: Resolved,
  view: "blob" | "blame",
): Promise<FileAt | Rendered> {
  const { urls } = req;
  const path = joinPath(at.path);
  const back = { href: urls.at("tree", at.ref), label: "Go to the repository's root" };
  if (at.path.length === 0) return notFoundPage(`${at.ref}/`, back);
  const blob = await readBlob(req.ctx, req.repo, at.commit, path, req.client);
  if (blob.kind === "tree") {
    return { status: 302, body: "", headers: { Location: urls.at("tree", at.ref, at.path) } };
  }
  if (blob.kind === "missing") return await missingPathPage(req, at, view);
  return { path, name: at.path.at(-1)!, blob };
}

/** A file page's bar: the ref switcher (to the same view of the file) and the path's crumbs. */
export function FileBar(
  { req, at, view }: { req: PageRequest; at: Resolved; view: "blob" | "blame" },
): VNode {
  return (
    <RepoBar
      repo={req.repo}
      tab="code"
      gitRef={at.ref}
      link={(ref) => req.urls.at(view, ref, at.path)}
    >
      <Crumbs repo={req.repo} gitRef={at.ref} path={at.path} />
    </RepoBar>
  );
}

/** The warning above text holding bidirectional controls (shown as marks, never applied). */
export function BidiNotice(): VNode {
  return (
    <div class="notice notice-warning" role="note">
      <div class="notice-text">
        This file contains bidirectional Unicode control characters: they are shown as marks (such
        as U+202E) instead of reordering the text.
      </div>
    </div>
  );
}

/** The blob page (or a redirect to the tree page when the path is a directory). */
export async function renderBlob(req: PageRequest, at: Resolved): Promise<Rendered> {
  const { urls } = req;
  const file = await fileAt(req, at, "blob");
  if (!("blob" in file)) return file;
  const { path, name, blob } = file;

  const raw = urls.at("raw", at.ref, at.path);
  const image = imageType(name);
  const text = blob.bytes && !looksBinary(blob.bytes) && !image
    ? new TextDecoder().decode(blob.bytes)
    : null;
  const markdown = text !== null && isMarkdown(name);
  const source = req.query.get("plain") === "1";
  const lineCount = !text ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

  // A one-line file small enough to be a link's target path: its mode says whether it is one.
  const link = text !== null && blob.size <= 4096 && !text.includes("\n") &&
      await entryMode(req.ctx, req.repo, at.commit, path, req.client) === SYMLINK_MODE
    ? text
    : null;
  let content;
  if (link !== null) {
    const inside = symlinkTarget(at.path.slice(0, -1), link);
    content = (
      <p class="box-body">
        Symbolic link to {inside
          ? (
            <a href={urls.at("blob", at.ref, inside)}>
              <Name text={link} />
            </a>
          )
          : (
            <code>
              <Name text={link} />
            </code>
          )}
        {inside ? null : " (outside the repository)"}
      </p>
    );
  } else if (blob.size === 0) {
    content = <p class="box-body muted">This file is empty.</p>;
  } else if (image && blob.size <= MAX_SHOWN_BYTES) {
    content = (
      <div class="box-body">
        <img class="preview-image" src={raw} alt={plain(name)} />
      </div>
    );
  } else if (text === null) {
    const why = blob.bytes === null
      ? `This file is ${bytes(blob.size)}, too large to show here (the limit is ${
        bytes(MAX_SHOWN_BYTES)
      }).`
      : "This file is binary.";
    content = (
      <div class="box-body">
        <p>{why}</p>
        <p>
          <a class="btn btn-secondary" href={`${raw}?download=1`}>Download {bytes(blob.size)}</a>
        </p>
      </div>
    );
  } else if (markdown && !source) {
    content = (
      <div
        class="box-body markdown"
        dangerouslySetInnerHTML={{ __html: markdownHtml(req, at.ref, at.path.slice(0, -1), text) }}
      />
    );
  } else {
    const code = (
      <div
        class="code-view"
        tabIndex={0}
        role="region"
        aria-label={`Content of ${plain(name)}`}
        dangerouslySetInnerHTML={{ __html: codeTable(highlightLines(text, name)) }}
      />
    );
    // An SVG drawn as an image (raw.ts serves it as one to an <img> only), then its source.
    content = isSvg(name)
      ? (
        <>
          <div class="box-body">
            <img class="preview-image" src={raw} alt={plain(name)} />
          </div>
          {code}
        </>
      )
      : code;
  }

  return page(
    repoTitle(req.repo, `${path} at ${titleRef(at)}`),
    <>
      <FileBar req={req} at={at} view="blob" />
      {text !== null && !markdown && languageOf(name) && blob.size > MAX_HIGHLIGHT_BYTES && (
        <p class="muted">
          {`Shown without syntax highlighting: files over ${
            bytes(MAX_HIGHLIGHT_BYTES)
          } are not highlighted.`}
        </p>
      )}
      {text !== null && hasBidi(text) && <BidiNotice />}
      <div class="box">
        <div class="box-head">
          <span>
            <Name text={name} />
          </span>
          <span class="muted">
            {text !== null ? `${lineCount} line${lineCount === 1 ? "" : "s"} · ` : ""}
            {bytes(blob.size)}
          </span>
          <span class="spacer" />
          <span class="box-actions">
            {markdown &&
              (source
                ? (
                  <a class="btn btn-ghost btn-sm" href={urls.at("blob", at.ref, at.path)}>
                    Rendered
                  </a>
                )
                : (
                  <a
                    class="btn btn-ghost btn-sm"
                    href={`${urls.at("blob", at.ref, at.path)}?plain=1`}
                  >
                    Source
                  </a>
                ))}
            {text !== null && (
              <a class="btn btn-ghost btn-sm" href={urls.at("blame", at.ref, at.path)}>Blame</a>
            )}
            <a class="btn btn-ghost btn-sm" href={urls.at("commits", at.ref, at.path)}>History</a>
            <a class="btn btn-ghost btn-sm" href={raw}>Raw</a>
          </span>
        </div>
        {content}
      </div>
    </>,
  );
}
