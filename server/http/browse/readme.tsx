/** A directory's README under its listing: Markdown rendered, other text as it is. */
import type { VNode } from "preact";
import { type BlobResult, looksBinary, readBlob } from "../../domain/browse/blob.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import type { TreeEntry } from "../../domain/browse/tree.ts";
import type { PageRequest } from "./context.ts";
import { Name } from "./frame.tsx";
import { isMarkdown, renderMarkdown } from "./markdown.ts";

/** Largest README rendered under a listing (a larger one is linked instead). */
export const MAX_README_BYTES = 512 * 1024;

/** Renders Markdown `text` of a file in `dir` at `ref`, its links resolved to this repository. */
export function markdownHtml(req: PageRequest, ref: string, dir: string[], text: string): string {
  return renderMarkdown(text, {
    dir,
    link: (path) => req.urls.at("blob", ref, path),
    image: (path) => req.urls.at("raw", ref, path),
  });
}

/**
 * `p` with its rejection marked handled: a read started as a guess may never be awaited (the page
 * ended early), and an unhandled rejection would end the server.
 */
export function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** A README read for its box. */
export interface ReadmeData {
  name: string;
  href: string;
  /** Its HTML (Markdown rendered) or text; null when it cannot be shown here. */
  html: string | null;
  text: string | null;
  why: string | null;
}

/**
 * Reads the README `entry` of `dir` at `at` (one more git call), unless `guess` read a file of its
 * name already (started beside the tree listing, to save a round of git).
 */
export async function loadReadme(
  req: PageRequest,
  at: Resolved,
  dir: string[],
  entry: TreeEntry,
  guess?: { name: string; blob: Promise<BlobResult> },
): Promise<ReadmeData> {
  const path = [...dir, entry.name];
  const blob = guess && guess.name === entry.name
    ? await guess.blob
    : await readBlob(req.ctx, req.repo, at.commit, path.join("/"), req.client, MAX_README_BYTES);
  const data: ReadmeData = {
    name: entry.name,
    href: req.urls.at("blob", at.ref, path),
    html: null,
    text: null,
    why: null,
  };
  if (blob.kind !== "blob") data.why = "could not be read";
  else if (blob.bytes === null) data.why = "is too large to show here";
  else if (looksBinary(blob.bytes)) data.why = "is binary";
  else {
    const text = new TextDecoder().decode(blob.bytes);
    if (isMarkdown(entry.name)) data.html = markdownHtml(req, at.ref, dir, text);
    else data.text = text;
  }
  return data;
}

/** The README box. */
export function Readme({ data }: { data: ReadmeData }): VNode {
  return (
    <section class="box" aria-label="README">
      <div class="box-head">
        <a href={data.href}>
          <Name text={data.name} />
        </a>
      </div>
      {data.html !== null
        ? <div class="box-body markdown" dangerouslySetInnerHTML={{ __html: data.html }} />
        : data.text !== null
        ? <pre class="box-body commit-message">{data.text}</pre>
        : (
          <p class="box-body muted">
            The README {data.why}: <a href={data.href}>open it</a>.
          </p>
        )}
    </section>
  );
}
