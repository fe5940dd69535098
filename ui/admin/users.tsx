/** Users: every account with its key fingerprint and how many repositories it owns. */
import { Empty, Link, PageHeader, Time, useResource } from "../common/components.tsx";
import { plural } from "../common/format.ts";
import { type Column, ListCard } from "../common/table.tsx";
import { adminApi } from "./session.ts";
import type { User } from "./types.ts";

const COLUMNS: Column<User>[] = [
  { label: "ID", headClass: "col-num", cellClass: "col-num muted", cell: (u) => u.id },
  { label: "Username", cellClass: "cell-main", cell: (u) => <strong>{u.username}</strong> },
  {
    label: "Key fingerprint",
    cell: (u) => <code class="mono fingerprint" title={u.public_key}>{u.fingerprint}</code>,
  },
  { label: "Created", cell: (u) => <Time iso={u.created_at} /> },
  {
    label: "Repositories",
    headClass: "col-num",
    cellClass: "col-num",
    cell: (u) =>
      u.repo_count > 0
        ? (
          <Link href={`/admin/repos?q=${encodeURIComponent(u.username)}`}>
            {u.repo_count}
          </Link>
        )
        : <span class="muted">0</span>,
  },
];

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
      <ListCard
        id="users"
        title="All users"
        noun="users"
        resource={users}
        reload={reload}
        head={users.data && <span class="muted">{plural(users.data.length, "user")}</span>}
        empty={
          <Empty icon="users" title="No users yet">
            Users appear here once someone signs up with an{" "}
            <Link href="/admin/invites">invite</Link>.
          </Empty>
        }
        table={{
          id: "users-table",
          columns: COLUMNS,
          rowKey: (u) => u.id,
          rowData: (u) => ({ "data-username": u.username }),
        }}
      />
    </>
  );
}
