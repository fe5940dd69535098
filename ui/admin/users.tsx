/** Users: every account with its key fingerprint and how many repositories it owns; paged. */
import { Empty, Link, PageHeader, SearchInput, Time } from "../common/components.tsx";
import type { Column } from "../common/table.tsx";
import { navigate } from "../common/router.ts";
import {
  hrefWith,
  NoMatch,
  PagedCard,
  type SortChoice,
  SortSelect,
  usePage,
  useQuery,
} from "./paged.tsx";
import type { User, UsersPage as UsersReply } from "./types.ts";

const COLUMNS: Column<User>[] = [
  { label: "ID", headClass: "col-num", cellClass: "col-num muted", cell: (u) => u.id },
  {
    label: "Username",
    cellClass: "cell-main",
    cell: (u) => (
      <Link href={`/admin/user?name=${encodeURIComponent(u.username)}`} class="wrap-anywhere">
        <strong>
          <bdi>{u.username}</bdi>
        </strong>
      </Link>
    ),
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

const SORTS: SortChoice[] = [
  { label: "Username (A–Z)", sort: "name", order: "asc" },
  { label: "Username (Z–A)", sort: "name", order: "desc" },
  { label: "Newest first", sort: "created", order: "desc" },
  { label: "Oldest first", sort: "created", order: "asc" },
];

/** The Users page. */
export function UsersPage() {
  const [users, reload] = usePage<UsersReply>("/users");
  const q = useQuery().get("q") ?? "";
  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone who signed up with an invite. Keys are shown as ssh-keygen -lf prints them."
      />
      <PagedCard
        id="users"
        title="All users"
        noun="users"
        resource={users}
        reload={reload}
        rows={users.data?.users ?? []}
        head={
          <>
            <SearchInput
              placeholder="Filter by username"
              label="Filter users by username"
              value={q}
              onInput={(v) => navigate(hrefWith({ q: v }), true)}
            />
            <SortSelect id="users" choices={SORTS} page={users.data} />
          </>
        }
        empty={
          <Empty icon="users" title="No users yet">
            Users appear here once someone signs up with an{" "}
            <Link href="/admin/invites">invite</Link>.
          </Empty>
        }
        filteredEmpty={<NoMatch what="users" />}
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
