/** Repositories: every repository with clone URLs, size and last push; paged, filtered, sorted, deleted. */
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import {
  CopyButton,
  Empty,
  errorMessage,
  ErrorNotice,
  Link,
  PageHeader,
  Time,
} from "../common/components.tsx";
import { formatBytes } from "../common/format.ts";
import { Icon } from "../common/icons.tsx";
import type { Column } from "../common/table.tsx";
import { dangerColumn } from "./columns.tsx";
import {
  AdminList,
  hrefWith,
  nameAndAgeSorts,
  type SortChoice,
  usePage,
  useQuery,
} from "./paged.tsx";
import { adminApi } from "./session.ts";
import type { Repo, ReposPage as ReposReply } from "./types.ts";

function fullName(r: Repo): string {
  return `${r.owner}/${r.name}`;
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
          {/* The repository's public page (the browser, server-rendered: a full page load). */}
          <a
            class="repo-full-name"
            href={`/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.name)}`}
          >
            <bdi class="muted">{r.owner}</bdi>
            <span class="muted">/</span>
            <strong>
              <bdi>{r.name}</bdi>
            </strong>
          </a>
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
    dangerColumn({ text: "Delete", label: (r) => `Delete ${fullName(r)}`, onClick: onDelete }),
  ];
}

const SORTS: SortChoice[] = [
  ...nameAndAgeSorts("Name"),
  { label: "Recently pushed", sort: "pushed", order: "desc" },
];

/** The Repositories page: one server page at a time, filtered and sorted by the URL's query. */
export function ReposPage() {
  const [repos, reload] = usePage<ReposReply>("/repos");
  const owner = useQuery().get("owner");
  const deleting = useSignal<Repo | null>(null);
  const deleted = useSignal<string | null>(null);
  const rows = repos.data?.repos ?? [];

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
      <AdminList
        id="repos"
        noun="repositories"
        search={{
          placeholder: "Filter by owner or name",
          label: "Filter repositories by owner or name",
        }}
        filters={owner && (
          <span class="filter-chip">
            Owner <strong>{owner}</strong>
            <Link
              href={hrefWith({ owner: null })}
              aria-label={`Show every owner, not only ${owner}`}
            >
              ×
            </Link>
          </span>
        )}
        sorts={SORTS}
        summary={repos.data && (
          <span class="muted">{formatBytes(repos.data.size_bytes_total)} on disk in all</span>
        )}
        empty={
          <Empty icon="repo" title="No repositories yet">
            Users create them with <code>signet repo new &lt;name&gt;</code> or{" "}
            <code>ssh git@host repo new &lt;name&gt;</code>.
          </Empty>
        }
        resource={repos}
        reload={reload}
        rows={rows}
        table={{
          columns: columns((r) => (deleting.value = r)),
          rowKey: fullName,
          rowData: (r) => ({ "data-repo": fullName(r) }),
        }}
      />
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
