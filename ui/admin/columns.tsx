/** Table pieces the admin pages share: a link to one user and a row's danger action button. */
import { Link } from "../common/components.tsx";
import { Icon } from "../common/icons.tsx";
import type { Column } from "../common/table.tsx";

/** A username, bold, linking to that user's page. */
export function UserLink({ username }: { username: string }) {
  return (
    <Link href={`/admin/user?name=${encodeURIComponent(username)}`} class="wrap-anywhere">
      <strong>
        <bdi>{username}</bdi>
      </strong>
    </Link>
  );
}

/**
 * The "Actions" column: one trash button per row (`text`, e.g. "Delete", labelled `label(row)`),
 * disabled while `busy(row)`, absent where `hidden(row)`.
 */
export function dangerColumn<T>(
  { text, label, onClick, busy, hidden }: {
    text: string;
    label: (row: T) => string;
    onClick: (row: T) => void;
    busy?: (row: T) => boolean;
    hidden?: (row: T) => boolean;
  },
): Column<T> {
  return {
    label: "Actions",
    labelHidden: true,
    cellClass: "cell-actions",
    cell: (row) =>
      hidden?.(row) ? null : (
        <button
          type="button"
          class="btn btn-ghost btn-sm btn-danger-ghost"
          disabled={busy?.(row)}
          onClick={() => onClick(row)}
          aria-label={label(row)}
        >
          <Icon name="trash" />
          {text}
        </button>
      ),
  };
}
