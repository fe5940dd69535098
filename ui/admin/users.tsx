/** Users: every account with its key fingerprint and how many repositories it owns. */
import {
  Empty,
  Link,
  PageHeader,
  ResourceStatus,
  Time,
  useResource,
} from "../common/components.tsx";
import { plural } from "../common/format.ts";
import { adminApi } from "./session.ts";
import type { User } from "./types.ts";

/** The Users page. */
export function UsersPage() {
  const [users, reload] = useResource(
    () => adminApi<{ users: User[] }>("/users").then((r) => r.users),
    [],
  );
  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone who signed up with an invite. Keys are shown as ssh-keygen -lf prints them."
      />
      <section class="card card-flush" aria-labelledby="users-title">
        <div class="card-head card-head-padded">
          <h2 id="users-title">All users</h2>
          {users.data && <span class="muted">{plural(users.data.length, "user")}</span>}
        </div>
        <ResourceStatus
          resource={users}
          loading="Loading users…"
          failed="Could not load users"
          onRetry={reload}
          padded
        />
        {users.data?.length === 0 && (
          <Empty icon="users" title="No users yet">
            Users appear here once someone signs up with an{" "}
            <Link href="/admin/invites">invite</Link>.
          </Empty>
        )}
        {users.data && users.data.length > 0 && (
          <table class="table" id="users-table">
            <thead>
              <tr>
                <th scope="col" class="col-num">ID</th>
                <th scope="col">Username</th>
                <th scope="col">Key fingerprint</th>
                <th scope="col">Created</th>
                <th scope="col" class="col-num">Repositories</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id} data-username={u.username}>
                  <td data-label="ID" class="col-num muted">{u.id}</td>
                  <td data-label="Username" class="cell-main">
                    <strong>{u.username}</strong>
                  </td>
                  <td data-label="Key fingerprint">
                    <code class="mono fingerprint" title={u.public_key}>
                      {u.fingerprint}
                    </code>
                  </td>
                  <td data-label="Created">
                    <Time iso={u.created_at} />
                  </td>
                  <td data-label="Repositories" class="col-num">
                    {u.repo_count > 0
                      ? (
                        <Link href={`/admin/repos?q=${encodeURIComponent(u.username)}`}>
                          {u.repo_count}
                        </Link>
                      )
                      : <span class="muted">0</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
