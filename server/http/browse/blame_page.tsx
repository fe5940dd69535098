/**
 * `/<owner>/<repo>/blame/<ref>/<path>`: a text file's lines, highlighted as on its blob page, each
 * run of lines from one commit headed, on one line, by that commit (short id, author, date,
 * summary), and every line marked by its commit's age among the file's commits, as forges shade
 * blame: the newest darkest (a legend says which end is which). Files the blob page would not show
 * as text (binary, over MAX_SHOWN_BYTES), and blames too large or too slow to make, get a page
 * saying so that leads to the file.
 */
import type { Resolved } from "../../domain/browse/refs.ts";
import { looksBinary } from "../../domain/browse/blob.ts";
import { type Blame, blame } from "../../domain/browse/blame.ts";
import type { PageRequest } from "./context.ts";
import { messagePage, Name, page, plain, type Rendered, repoTitle, titleRef } from "./frame.tsx";
import { escapeHtml, hasBidi, highlightLines } from "./highlight.ts";
import { BidiNotice, fileAt, FileBar } from "./blob_page.tsx";
import { READ_TIMEOUT_MS } from "../../domain/browse/git_read.ts";

/** The blame page (a redirect to the tree page for a directory). */
export async function renderBlame(req: PageRequest, at: Resolved): Promise<Rendered> {
  const { urls } = req;
  const file = await fileAt(req, at, "blame");
  if (!("blob" in file)) return file;
  const { path, name, blob } = file;
  const blobPage = { href: urls.at("blob", at.ref, at.path), label: "Go to the file" };
  if (!blob.bytes || looksBinary(blob.bytes)) {
    return messagePage(
      200,
      "No blame for this file",
      "Only text files small enough to show have a blame view:",
      path,
      blobPage,
    );
  }
  const made = await blame(req.ctx, req.repo, at.commit, path, req.client);
  if (made.kind !== "blame") {
    const why = made.kind === "too-large"
      ? "Its blame is too large to show (the file has too many lines changed by too many commits):"
      : made.kind === "too-slow"
      ? `Its history is too long to follow within ${READ_TIMEOUT_MS / 1000} s:`
      : "git could not blame";
    return messagePage(200, "No blame for this file", why, path, blobPage);
  }
  const result = made.blame;
  return page(
    repoTitle(req.repo, `Blame of ${path} at ${titleRef(at)}`),
    <>
      <FileBar req={req} at={at} view="blame" />
      {hasBidi(result.lines.join("\n")) && <BidiNotice />}
      <div class="box">
        <div class="box-head">
          <span>
            Blame of <Name text={name} />
          </span>
          <span class="muted">
            {`lines from ${result.commits.size} commit${result.commits.size === 1 ? "" : "s"}`}
          </span>
          <span class="spacer" />
          {result.commits.size > 1 && <AgeLegend />}
          <span class="box-actions">
            <a class="btn btn-ghost btn-sm" href={urls.at("blob", at.ref, at.path)}>File</a>
            <a class="btn btn-ghost btn-sm" href={urls.at("commits", at.ref, at.path)}>History</a>
            <a class="btn btn-ghost btn-sm" href={urls.at("raw", at.ref, at.path)}>Raw</a>
          </span>
        </div>
        <div
          class="code-view"
          tabIndex={0}
          role="region"
          aria-label={`Blame of ${plain(name)}`}
          dangerouslySetInnerHTML={{ __html: blameTable(req, result, name) }}
        />
      </div>
    </>,
  );
}

/** How many shades of age a blame's lines are marked with (classes `age-0`, oldest, to `age-4`). */
const AGE_SHADES = 5;

/** "Older ▮▮▮▮▮ Newer": what the shades beside the lines mean. */
function AgeLegend() {
  return (
    <span class="blame-legend muted" aria-hidden="true">
      Older
      {Array.from(
        { length: AGE_SHADES },
        (_, i) => <span key={i} class={`blame-swatch age-${i}`} />,
      )}
      Newer
    </span>
  );
}

/**
 * Each commit's shade: its author date's place between the oldest and the newest of the blame's
 * commits, in AGE_SHADES steps (all newest when they share one date).
 */
export function ageShades(commits: Map<string, { date: number }>): Map<string, number> {
  const dates = [...commits.values()].map((c) => c.date);
  const oldest = Math.min(...dates);
  const span = Math.max(...dates) - oldest;
  const shades = new Map<string, number>();
  for (const [id, c] of commits) {
    shades.set(
      id,
      span > 0 ? Math.round(((c.date - oldest) / span) * (AGE_SHADES - 1)) : AGE_SHADES - 1,
    );
  }
  return shades;
}

/** `2026-11-26` of Unix seconds. */
function day(unix: number): string {
  return unix ? new Date(unix * 1000).toISOString().slice(0, 10) : "";
}

/**
 * The lines as a numbered table (the code view's, so `#L10-L20` works), a first column naming the
 * commit of each run of lines on the run's first row and shaded by its age on every row.
 */
function blameTable(req: PageRequest, result: Blame, name: string): string {
  const html = highlightLines(result.lines.join("\n"), name);
  const shades = ageShades(result.commits);
  const rows: string[] = [];
  for (let i = 0; i < result.lines.length; i++) {
    const n = i + 1;
    const id = result.commitOf[i];
    const first = i === 0 || result.commitOf[i - 1] !== id;
    let who = "";
    if (first) {
      const c = result.commits.get(id)!;
      const summary = escapeHtml(plain(c.summary));
      const author = escapeHtml(plain(c.author));
      const title = `${summary} (${author}, ${day(c.date)})`;
      // Blame prior to this change: the file as it was in the commit before this one.
      const prior = c.previous
        ? `<a class="blame-prior" href="${
          escapeHtml(req.urls.at("blame", c.previous.id, c.previous.path.split("/")))
        }" title="Blame prior to this change" aria-label="Blame prior to ${
          id.slice(0, 8)
        }">&#8630;</a>`
        : `<span class="blame-prior"></span>`;
      who = prior + `<a href="${escapeHtml(req.urls.commit(id))}" title="${title}">` +
        `<code>${id.slice(0, 8)}</code> <span class="blame-author">${author}</span> ` +
        `<span class="blame-date">${day(c.date)}</span> ` +
        `<span class="blame-summary">${summary}</span></a>`;
    }
    rows.push(
      `<tr id="L${n}"${first ? ' class="blame-start"' : ""}><td class="blame age-${
        shades.get(id)
      }">${who}</td>` +
        `<td class="ln"><a href="#L${n}">${n}</a></td><td class="lc">${html[i] ?? ""}</td></tr>`,
    );
  }
  return `<table class="lines blame-lines" role="presentation"><tbody>${
    rows.join("")
  }</tbody></table>`;
}
