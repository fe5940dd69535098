/** Repositories: every repository with clone URLs, size and last push; filter and delete. */
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import {
  CopyButton,
  Empty,
  errorMessage,
  ErrorNotice,
  PageHeader,
  SearchInput,
  Time,
  useResource,
} from "../common/components.tsx";
import { formatBytes, plural } from "../common/format.ts";
import { Icon } from "../common/icons.tsx";
import { type Column, ListCard } from "../common/table.tsx";
import { location, navigate } from "../common/router.ts";
import { adminApi } from "./session.ts";
import type { Repo } from "./types.ts";

function fullName(r: Repo): string {
  return `${r.owner}/${r.name}`;
}

/** Rows whose owner or name contains every word of `query` (case-insensitive). */
export function filterRepos(repos: Repo[], query: string): Repo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return repos;
  return repos.filter((r) => words.every((w) => fullName(r).toLowerCase().includes(w)));
}

/** One clone URL with its copy button. */
function CloneUrl({ label, url }: { label: string; url: string }) {
  return (
    <div class="clone-url">
      <span class="clone-kind">{label}</span>
      <code class="mono clone-value" title={url}>{url}</code>
      <CopyButton text={url} what={`${label} clone URL`} />
    </div>
  );
}

/** Modal that deletes `repo` once its full name is typed. */
function DeleteDialog(
  { repo, onClose, onDeleted }: {
    repo: Repo;
    onClose: () => void;
    onDeleted: (name: string) => void;
  },
) {
  const ref = useRef<HTMLDialogElement>(null);
  const typed = useSignal("");
  const busy = useSignal(false);
  const error = useSignal<string | null>(null);
  const name = fullName(repo);
  const matches = typed.value.trim() === name;

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!matches || busy.value) return;
    busy.value = true;
    error.value = null;
    try {
      await adminApi<{ deleted: string }>(
        `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`,
        { method: "DELETE" },
      );
      ref.current?.close();
      onDeleted(name);
    } catch (err) {
      error.value = errorMessage(err);
      busy.value = false;
    }
  };

  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="delete-title"
      aria-describedby="delete-desc"
      onClose={onClose}
    >
      <form onSubmit={submit} class="dialog-body" method="dialog">
        <div class="dialog-icon danger">
          <Icon name="trash" />
        </div>
        <h2 id="delete-title">Delete {name}?</h2>
        <p id="delete-desc" class="muted">
          This removes the repository and all of its history from disk. It cannot be undone.
        </p>
        {error.value && <ErrorNotice title="Could not delete" message={error.value} />}
        <div class="field">
          <label for="confirm-name">
            Type <strong class="mono">{name}</strong> to confirm
          </label>
          <input
            id="confirm-name"
            class="input input-mono"
            autoComplete="off"
            spellcheck={false}
            autoFocus
            value={typed.value}
            onInput={(e) => (typed.value = (e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="dialog-actions">
          <button
            type="button"
            class="btn btn-secondary"
            onClick={() => ref.current?.close()}
          >
            Cancel
          </button>
          <button type="submit" class="btn btn-danger" disabled={!matches || busy.value}>
            {busy.value
              ? <span class="spinner spinner-sm" aria-hidden="true" />
              : <Icon name="trash" />}
            Delete repository
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The table's columns; `onDelete` opens the delete dialog for a row. */
function columns(onDelete: (repo: Repo) => void): Column<Repo>[] {
  return [
    {
      label: "Repository",
      cellClass: "cell-main",
      cell: (r) => (
        <span class="repo-name">
          <Icon name="repo" class="muted" />
          <span>
            <span class="muted">{r.owner}/</span>
            <strong>{r.name}</strong>
          </span>
        </span>
      ),
    },
    {
      label: "Clone",
      cellClass: "cell-clone cell-block",
      cell: (r) => (
        <>
          <CloneUrl label="HTTP" url={r.clone_urls.http} />
          {r.clone_urls.ssh && <CloneUrl label="SSH" url={r.clone_urls.ssh} />}
        </>
      ),
    },
    {
      label: "Size",
      headClass: "col-num",
      cellClass: "col-num nowrap",
      cell: (r) => formatBytes(r.size_bytes),
    },
    {
      label: "Last push",
      cellClass: "nowrap",
      cell: (r) => <Time iso={r.pushed_at} empty="never" />,
    },
    {
      label: "Actions",
      labelHidden: true,
      cellClass: "cell-actions",
      cell: (r) => (
        <button
          type="button"
          class="btn btn-ghost btn-sm btn-danger-ghost"
          onClick={() => onDelete(r)}
          aria-label={`Delete ${fullName(r)}`}
        >
          <Icon name="trash" />
          Delete
        </button>
      ),
    },
  ];
}

/** The Repositories page. */
export function ReposPage() {
  const [repos, reload] = useResource(
    () => adminApi<{ repos: Repo[] }>("/repos").then((r) => r.repos),
    [],
  );
  const query = new URLSearchParams(location.value.search).get("q") ?? "";
  const deleting = useSignal<Repo | null>(null);
  const deleted = useSignal<string | null>(null);

  const setQuery = (q: string) => {
    navigate(q ? `/admin/repos?q=${encodeURIComponent(q)}` : "/admin/repos", true);
  };
  const shown = repos.data ? filterRepos(repos.data, query) : [];
  const totalSize = repos.data?.reduce((sum, r) => sum + r.size_bytes, 0) ?? 0;

  return (
    <>
      <PageHeader
        title="Repositories"
        description="Every repository on this server, with its clone URLs and size on disk."
      />
      {deleted.value && (
        <div class="notice notice-success" role="status">
          <Icon name="check" class="notice-icon" />
          <div class="notice-text">
            <p>
              Deleted <strong>{deleted.value}</strong>.
            </p>
          </div>
          <button type="button" class="btn btn-ghost btn-sm" onClick={() => (deleted.value = null)}>
            Dismiss
          </button>
        </div>
      )}
      <ListCard
        id="repos"
        title="All repositories"
        titleHidden
        toolbar
        noun="repositories"
        resource={repos}
        reload={reload}
        head={
          <>
            <SearchInput
              placeholder="Filter by owner or name"
              label="Filter repositories by owner or name"
              value={query}
              onInput={setQuery}
            />
            {repos.data && (
              <span class="muted">
                {query
                  ? `${shown.length} of ${plural(repos.data.length, "repository", "repositories")}`
                  : `${plural(repos.data.length, "repository", "repositories")} · ${
                    formatBytes(totalSize)
                  }`}
              </span>
            )}
          </>
        }
        rows={shown}
        table={{
          id: "repos-table",
          columns: columns((r) => (deleting.value = r)),
          rowKey: fullName,
          rowData: (r) => ({ "data-repo": fullName(r) }),
        }}
        empty={
          <Empty icon="repo" title="No repositories yet">
            Users create them with <code>signet repo new &lt;name&gt;</code> or{" "}
            <code>ssh git@host repo new &lt;name&gt;</code>.
          </Empty>
        }
      >
        {repos.data && repos.data.length > 0 && shown.length === 0 && (
          <Empty title={`No repositories match “${query}”`}>
            <button
              type="button"
              class="btn btn-secondary btn-sm"
              onClick={() =>
                setQuery("")}
            >
              Clear filter
            </button>
          </Empty>
        )}
      </ListCard>
      {deleting.value && (
        <DeleteDialog
          repo={deleting.value}
          onClose={() => (deleting.value = null)}
          onDeleted={(name) => {
            deleted.value = name;
            reload();
          }}
        />
      )}
    </>
  );
}
