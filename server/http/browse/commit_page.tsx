/**
 * `/<owner>/<repo>/commit/<id>`: a commit's message, author, parents and diff against its first
 * parent, file by file; a file's diff over the limits says "diff too large" and links to the file.
 * `/<owner>/<repo>/commit/<id>.patch`: the commit as `git format-patch` writes it.
 */
import type { VNode } from "preact";
import {
  type Changes,
  type FileChange,
  MAX_PATCH_BYTES,
  readCommit,
} from "../../domain/browse/commit.ts";
import type { PageRequest } from "./context.ts";
import {
  ArchiveLinks,
  bytes,
  Name,
  page,
  plain,
  type Rendered,
  RepoHeader,
  repoTitle,
  When,
} from "./frame.tsx";
import { escapeHtml } from "./highlight.ts";

/** A file's lines added and deleted, when they were counted (not for a binary file). */
function LineCounts({ f }: { f: FileChange }): VNode | null {
  if (!f.counted) return null;
  return (
    <>
      <span class="added">+{f.added}</span>
      <span class="deleted">−{f.deleted}</span>
    </>
  );
}

/**
 * A file's patch as HTML lines: added, deleted, hunk headers and git's own lines apart, each hunk
 * line with its numbers in the old and the new file (drawn by CSS from `data-o` and `data-n`, so
 * copying the diff copies no number, and hidden from screen readers). Each hunk line is an anchor
 * (`<file>-L<old>` for a deleted line, `<file>-R<new>` for the others, as GitHub names them) that
 * its numbers link to; `file` is the id of the file's section.
 */
export function diffHtml(patch: string, file = "diff"): string {
  const lines = patch.replace(/\n$/, "").split("\n");
  let inHunk = false;
  let oldLine = 0;
  let newLine = 0;
  let widest = 0;
  const html = lines.map((line) => {
    let cls = "dm";
    let numbers = ["", ""];
    let anchor = "";
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      inHunk = true;
      cls = "dh";
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
    } else if (inHunk && line.startsWith("+")) {
      cls = "da";
      numbers = ["", String(newLine++)];
      anchor = `${file}-R${numbers[1]}`;
    } else if (inHunk && line.startsWith("-")) {
      cls = "dd";
      numbers = [String(oldLine++), ""];
      anchor = `${file}-L${numbers[0]}`;
    } else if (inHunk && (line.startsWith(" ") || line === "")) {
      cls = "";
      numbers = [String(oldLine++), String(newLine++)];
      anchor = `${file}-R${numbers[1]}`;
    } else if (inHunk && line.startsWith("\\")) cls = "";
    else if (line.startsWith("diff --git ")) inHunk = false;
    widest = Math.max(widest, numbers[0].length, numbers[1].length);
    const numberAttrs = `aria-hidden="true" data-o="${numbers[0]}" data-n="${numbers[1]}"`;
    // A link out of the tab order: the numbers are a pointer's convenience, as on the file pages.
    const gutter = anchor
      ? `<a ${numberAttrs} href="#${anchor}" tabindex="-1"></a>`
      : `<i ${numberAttrs}></i>`;
    const attrs = `${cls ? ` class="${cls}"` : ""}${anchor ? ` id="${anchor}"` : ""}`;
    return `<span${attrs}>${gutter}${escapeHtml(line) || " "}</span>`;
  }).join("");
  return `<pre class="diff digits-${Math.min(Math.max(widest, 3), 7)}">${html}</pre>`;
}

const STATUS: Record<string, string> = {
  A: "added",
  D: "deleted",
  M: "modified",
  R: "renamed",
  C: "copied",
  T: "type changed",
};

function FileDiff(
  { req, id, parent, f, i, patchCut }: {
    req: PageRequest;
    id: string;
    parent: string | undefined;
    f: FileChange;
    i: number;
    patchCut: boolean;
  },
): VNode {
  // A deleted file is shown as it was in the first parent.
  const fileUrl = req.urls.at("blob", f.status === "D" && parent ? parent : id, f.path.split("/"));
  let body: VNode;
  if (f.patch !== null && f.binary) {
    body = <p class="box-body muted">Binary file (or over 1 MB): not shown.</p>;
  } else if (f.patch !== null) {
    body = (
      <div class="code-view" tabIndex={0} role="region" aria-label={`Diff of ${plain(f.path)}`}>
        <div dangerouslySetInnerHTML={{ __html: diffHtml(f.patch, `diff-${i}`) }} />
      </div>
    );
  } else if (f.tooLarge) {
    body = (
      <p class="box-body">
        Diff too large to show. <a href={fileUrl}>View the file</a>.
      </p>
    );
  } else {
    body = (
      <p class="box-body muted">
        {patchCut
          ? `Diff not shown: the whole diff is over ${bytes(MAX_PATCH_BYTES)}.`
          : "No content change."}
      </p>
    );
  }
  return (
    <section class="box" id={`diff-${i}`} aria-label={`Changes to ${plain(f.path)}`}>
      <div class="box-head">
        <span class="status" title={STATUS[f.status] ?? f.status}>{f.status}</span>
        <span class="file-name">
          {f.oldPath !== null && (
            <>
              <Name text={f.oldPath} />
              {" → "}
            </>
          )}
          <a href={fileUrl}>
            <Name text={f.path} />
          </a>
        </span>
        <span class="spacer" />
        <LineCounts f={f} />
      </div>
      {body}
    </section>
  );
}

/** An author's or committer's `<dd>`: name, `<email>`, date. */
function Who({ name, email, unix }: { name: string; email: string; unix: number | null }): VNode {
  return (
    <dd>
      <Name text={name} />{" "}
      <span class="muted">
        &lt;<Name text={email} />&gt;
      </span>
      {" · "}
      <When unix={unix} />
    </dd>
  );
}

/** The commit page, or null when `id` is no commit of the repository. */
export async function renderCommit(req: PageRequest, id: string): Promise<Rendered | null> {
  const detail = await readCommit(req.ctx, req.repo, id, req.client);
  if (!detail) return null;
  const { header: h } = detail;
  const [subject, ...rest] = h.message.split("\n");
  const body = rest.join("\n").replace(/^\n+/, "");
  const sameCommitter = h.committer === h.author && h.committerEmail === h.authorEmail;
  return page(
    // GitHub's: the subject, then `owner/repo@<id>`.
    `${subject || "Commit"} · ${repoTitle(req.repo)}@${id.slice(0, 10)}`,
    <>
      <RepoHeader repo={req.repo} tab="commits" />
      <section class="box" aria-labelledby="commit-subject">
        <div class="box-body stack">
          <h2 id="commit-subject" class="commit-message">
            <Name text={subject || "(no message)"} />
          </h2>
          {body && <pre class="commit-message">{body}</pre>}
          <dl class="facts">
            <dt>Author</dt>
            <Who name={h.author} email={h.authorEmail} unix={h.authorDate} />
            {!sameCommitter && (
              <>
                <dt>Committer</dt>
                <Who name={h.committer} email={h.committerEmail} unix={h.committerDate} />
              </>
            )}
            <dt>Commit</dt>
            <dd class="mono">{h.id}</dd>
            <dt>{h.parents.length === 1 ? "Parent" : "Parents"}</dt>
            <dd>
              {h.parents.length === 0
                ? <span class="muted">none (first commit)</span>
                : h.parents.map((p, i) => (
                  <>
                    {i > 0 && " "}
                    <a class="mono" href={req.urls.commit(p)}>{p.slice(0, 10)}</a>
                  </>
                ))}
            </dd>
          </dl>
          <p class="toolbar">
            <a class="btn btn-secondary btn-sm" href={req.urls.at("tree", h.id)}>Browse files</a>
            <a class="btn btn-ghost btn-sm" href={`${req.urls.commit(h.id)}.patch`}>Patch</a>
            <span class="muted">
              Download the files: <ArchiveLinks urls={req.urls} gitRef={h.id} />
            </span>
          </p>
        </div>
      </section>
      <ChangedFiles
        req={req}
        changes={detail}
        to={h.id}
        from={h.parents[0]}
        note={h.parents.length > 1 ? "(against the first parent)" : undefined}
      />
    </>,
  );
}

/**
 * The list of changed files, then each file's diff: files link to their version in `to` (a deleted
 * one to its version in `from`).
 */
export function ChangedFiles(
  { req, changes, to, from, note }: {
    req: PageRequest;
    changes: Changes;
    to: string;
    from: string | undefined;
    /** Said beside the count (what the diff is against). */
    note?: string;
  },
): VNode {
  const { files } = changes;
  return (
    <>
      <section class="box" aria-labelledby="files-title">
        <div class="box-head">
          <h2 id="files-title" class="card-title">
            {`${files.length}${changes.filesCut ? "+" : ""} file${
              files.length === 1 ? "" : "s"
            } changed`}
          </h2>
          {note && <span class="muted">{note}</span>}
        </div>
        <ul class="file-list">
          {files.map((f, i) => (
            <li>
              <span class="status" title={STATUS[f.status] ?? f.status}>{f.status}</span>
              <a class="name file-name" href={`#diff-${i}`}>
                <Name text={f.path} />
              </a>
              <LineCounts f={f} />
            </li>
          ))}
        </ul>
        {changes.filesCut && <p class="box-body muted">More files changed than are listed here.</p>}
      </section>
      {files.map((f, i) => (
        <FileDiff req={req} id={to} parent={from} f={f} i={i} patchCut={changes.patchCut} />
      ))}
    </>
  );
}
