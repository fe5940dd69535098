/**
 * `/<owner>/<repo>`: the default branch's top-level tree and README, its last commit, the branch
 * and tag counts and the clone URLs; an empty repository shows how to push to it instead.
 */
import type { VNode } from "preact";
import { repoView } from "../../domain/repos.ts";
import { findReadme, listTree } from "../../domain/browse/tree.ts";
import { lastCommit } from "../../domain/browse/history.ts";
import type { PageRequest } from "./context.ts";
import { ArchiveLinks, CopyLine, page, type Rendered, RepoBar, RepoHeader } from "./frame.tsx";
import { LastCommit, TreeList } from "./tree_page.tsx";
import { loadReadme, MAX_README_BYTES, quiet, Readme } from "./readme.tsx";
import { readBlob } from "../../domain/browse/blob.ts";

/** The clone URLs, each with a copy button, and the default branch's archives. */
function CloneBox(
  { http, ssh, download }: { http: string; ssh: string | null; download: VNode },
): VNode {
  return (
    <section class="box" aria-labelledby="clone-title">
      <div class="box-head">
        <h2 id="clone-title" class="card-title">Clone</h2>
      </div>
      <div class="box-body clone">
        <CopyLine id="clone-http" label="HTTP" text={http} />
        {ssh && <CopyLine id="clone-ssh" label="SSH" text={ssh} />}
        <p class="downloads">Download the files: {download}</p>
      </div>
    </section>
  );
}

/** The commands that push a first branch over one transport (`label`), with a copy button. */
function PushStep({ id, label, url }: { id: string; label: string; url: string }): VNode {
  return (
    <div>
      <h3>Over {label}</h3>
      <div class="clone-line">
        <pre id={id}>{`git remote add origin ${url}\ngit push -u origin main`}</pre>
        <button
          type="button"
          class="btn btn-secondary btn-sm copy-btn"
          data-copy={id}
          hidden
          aria-label={`Copy the ${label} push commands`}
        >
          Copy
        </button>
      </div>
    </div>
  );
}

/** How to push a first branch, for each transport. */
function PushSteps({ http, ssh }: { http: string; ssh: string | null }): VNode {
  return (
    <section class="box" aria-labelledby="empty-title">
      <div class="box-head">
        <h2 id="empty-title" class="card-title">This repository is empty</h2>
      </div>
      <div class="box-body push-steps">
        <p>Push an existing repository to it from the command line:</p>
        <PushStep id="push-http" label="HTTP" url={http} />
        {ssh && <PushStep id="push-ssh" label="SSH" url={ssh} />}
      </div>
    </section>
  );
}

/** The repository's home page. */
export async function renderRepoHome(req: PageRequest): Promise<Rendered> {
  const { repo } = req;
  const urls = repoView(req.ctx, repo.row).clone_urls;
  const title = `${repo.row.owner}/${repo.row.name}`;
  const branch = repo.refs.defaultBranch;
  const commit = branch ? repo.refs.byName.get(branch)?.commit : null;
  if (!branch || !commit) {
    return page(
      title,
      <>
        <RepoHeader repo={repo} tab="code" />
        <PushSteps http={urls.http} ssh={urls.ssh} />
      </>,
    );
  }
  const at = { ref: branch, kind: "branch" as const, path: [], commit };
  // README.md is read beside the listing (most repositories have one): one round of git, not two.
  const guess = {
    name: "README.md",
    blob: quiet(readBlob(req.ctx, repo, commit, "README.md", req.client, MAX_README_BYTES)),
  };
  const [tree, last] = await Promise.all([
    listTree(req.ctx, repo, commit, "", req.client),
    lastCommit(req.ctx, repo, commit, "", req.client, repo.refs.byName.get(branch)),
    guess.blob,
  ]);
  const entries = tree.kind === "tree" ? tree.entries : [];
  const entry = findReadme(entries);
  const readme = entry ? await loadReadme(req, at, [], entry, guess) : null;
  return page(
    title,
    <>
      <RepoBar repo={repo} tab="code" gitRef={branch} link={(ref) => req.urls.at("tree", ref)}>
        <span class="muted">
          {`${repo.refs.branches.length} branch${
            repo.refs.branches.length === 1 ? "" : "es"
          } · ${repo.refs.tags.length} tag${repo.refs.tags.length === 1 ? "" : "s"}`}
        </span>
        <span class="spacer" />
        <a class="btn btn-ghost btn-sm" href={req.urls.at("commits", branch)}>History</a>
      </RepoBar>
      <div class="box">
        <LastCommit req={req} commit={last} />
        <TreeList
          req={req}
          gitRef={branch}
          path={[]}
          entries={entries}
          total={tree.kind === "tree" ? tree.total : 0}
        />
      </div>
      <CloneBox
        http={urls.http}
        ssh={urls.ssh}
        download={<ArchiveLinks urls={req.urls} gitRef={branch} />}
      />
      {readme && <Readme data={readme} />}
    </>,
  );
}
