/**
 * One user (`/admin/user?name=<username>`): their key with its fingerprint, their repositories
 * (the first ten, and a link to all of them) and their live tokens with their last use, each
 * revocable.
 */
import { useSignal } from "@preact/signals";
import {
  CopyField,
  Empty,
  errorMessage,
  ErrorNotice,
  Link,
  PageHeader,
  ResourceStatus,
  Time,
  useResource,
} from "../common/components.tsx";
import { formatBytes } from "../common/format.ts";
import { NotFound } from "../common/not_found.tsx";
import { Icon } from "../common/icons.tsx";
import { type Column, DataTable } from "../common/table.tsx";
import { dangerColumn } from "./columns.tsx";
import { useQuery } from "./paged.tsx";
import { adminApi } from "./session.ts";
import type { ReposPage, Token, UserDetail } from "./types.ts";

/** The user page. */
export function UserPage() {
  const name = useQuery().get("name") ?? "";
  const [detail, reload] = useResource(
    () => adminApi<UserDetail>(`/users/${encodeURIComponent(name)}`),
    [name],
  );
  const [repos] = useResource(
    () => adminApi<ReposPage>(`/repos?owner=${encodeURIComponent(name)}&limit=10`),
    [name],
  );
  const revoking = useSignal<number | null>(null);
  const revokeError = useSignal<string | null>(null);
  const revoked = useSignal<number | null>(null);

  const revoke = async (t: Token) => {
    revoking.value = t.id;
    revokeError.value = null;
    try {
      await adminApi<{ revoked: number }>(`/tokens/${t.id}`, { method: "DELETE" });
      revoked.value = t.id;
      reload();
    } catch (err) {
      revokeError.value = errorMessage(err);
    } finally {
      revoking.value = null;
    }
  };

  const tokenColumns: Column<Token>[] = [
    { label: "ID", headClass: "col-num", cellClass: "col-num muted", cell: (t) => t.id },
    { label: "Created", cell: (t) => <Time iso={t.created_at} /> },
    { label: "Last used", cell: (t) => <Time iso={t.last_used_at} empty="never" /> },
    { label: "Expires", cell: (t) => <Time iso={t.expires_at} /> },
    dangerColumn({
      text: "Revoke",
      label: (t) => `Revoke token ${t.id}`,
      confirm: true,
      onClick: revoke,
      busy: (t) => revoking.value === t.id,
    }),
  ];

  if (detail.status === "error" && detail.code === 404) {
    // No such user: what was asked for and the way back, not a failure to retry.
    return (
      <NotFound path={name} title="User not found" lead="There is no user named">
        <Link href="/admin/users" class="btn btn-secondary">All users</Link>
      </NotFound>
    );
  }
  const user = detail.data?.user;
  return (
    <>
      <PageHeader
        title={
          <>
            User <bdi class="wrap-anywhere">{name}</bdi>
          </>
        }
        description={user
          ? (
            <>
              Signed up <Time iso={user.created_at} />. <Link href="/admin/users">All users</Link>
            </>
          )
          : <Link href="/admin/users">All users</Link>}
      />
      <ResourceStatus
        resource={detail}
        loading="Loading the user…"
        failed="Could not load the user"
        onRetry={reload}
      />
      {user && (
        <>
          <section class="card stack" aria-labelledby="user-key-title">
            <h2 id="user-key-title">
              <Icon name="key" /> SSH key
            </h2>
            <div>
              Fingerprint <code class="mono fingerprint">{user.fingerprint}</code>
            </div>
            <CopyField value={user.public_key} what="public key" />
            {detail.data!.invite && (
              <div class="muted">
                Signed up with invite <code class="mono">{detail.data!.invite.code}</code>, created
                {" "}
                <Time iso={detail.data!.invite.created_at} />.
              </div>
            )}
          </section>

          <section class="card card-flush" aria-labelledby="user-tokens-title">
            <div class="card-head card-head-padded">
              <h2 id="user-tokens-title">API tokens</h2>
              <span class="muted">
                {detail.data!.tokens.length} live; a revoked token stops working at once
              </span>
            </div>
            {revokeError.value && (
              <div class="card-pad">
                <ErrorNotice title="Could not revoke the token" message={revokeError.value} />
              </div>
            )}
            {revoked.value !== null && (
              <p class="card-pad" role="status">Revoked token {revoked.value}.</p>
            )}
            {detail.data!.tokens.length === 0 ? <Empty icon="key" title="No live tokens" /> : (
              <div
                class="table-scroll"
                tabIndex={0}
                role="region"
                aria-label="API tokens, scrolls sideways"
              >
                <DataTable
                  id="tokens-table"
                  columns={tokenColumns}
                  rows={detail.data!.tokens}
                  rowKey={(t) => t.id}
                  rowData={(t) => ({ "data-token": String(t.id) })}
                />
              </div>
            )}
          </section>

          <section class="card card-flush" aria-labelledby="user-repos-title">
            <div class="card-head card-head-padded">
              <h2 id="user-repos-title">Repositories</h2>
              {user.repo_count > 0 && (
                <Link href={`/admin/repos?owner=${encodeURIComponent(user.username)}`}>
                  All {user.repo_count.toLocaleString("en-US")} repositories
                </Link>
              )}
            </div>
            {user.repo_count === 0
              ? <Empty icon="repo" title="No repositories" />
              : (
                <ul class="user-repos">
                  {(repos.data?.repos ?? []).map((r) => (
                    <li key={r.name}>
                      <Icon name="repo" class="muted" />
                      <bdi class="wrap-anywhere">{r.name}</bdi>
                      <span class="muted nowrap">{formatBytes(r.size_bytes)}</span>
                      <span class="muted nowrap">
                        pushed <Time iso={r.pushed_at} empty="never" />
                      </span>
                    </li>
                  ))}
                </ul>
              )}
          </section>
        </>
      )}
    </>
  );
}
