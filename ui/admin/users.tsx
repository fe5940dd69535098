/** Users: every account with its key fingerprint and how many repositories it owns; paged. */
import { Empty, Link, PageHeader, Time } from "../common/components.tsx";
import type { Column, TableSpec } from "../common/table.tsx";
import { UserLink } from "./columns.tsx";
import { AdminList, nameAndAgeSorts, usePage } from "./paged.tsx";
import type { User, UsersPage as UsersReply } from "./types.ts";

const COLUMNS: Column<User>[] = [
  { label: "ID", headClass: "col-num", cellClass: "col-num muted", cell: (u) => u.id },
  {
    label: "Username",
    cellClass: "cell-main",
    cell: (u) => <UserLink username={u.username} />,
  },
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
          <Link href={`/admin/repos?owner=${encodeURIComponent(u.username)}`}>
            {u.repo_count.toLocaleString("en-US")}
          </Link>
        )
        : <span class="muted">0</span>,
  },
];

const TABLE: Omit<TableSpec<User>, "id"> = {
  columns: COLUMNS,
  rowKey: (u) => u.id,
  rowData: (u) => ({ "data-username": u.username }),
};

const SORTS = nameAndAgeSorts("Username");

/** The Users page. */
export function UsersPage() {
  const [users, reload] = usePage<UsersReply>("/users");
  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone who signed up with an invite. Keys are shown as ssh-keygen -lf prints them."
      />
      <AdminList
        id="users"
        noun="users"
        search={{ placeholder: "Filter by username", label: "Filter users by username" }}
        sorts={SORTS}
        empty={
          <Empty icon="users" title="No users yet">
            Users appear here once someone signs up with an{" "}
            <Link href="/admin/invites">invite</Link>.
          </Empty>
        }
        resource={users}
        reload={reload}
        rows={users.data?.users ?? []}
        table={TABLE}
      />
    </>
  );
}
