/** Table pieces the admin pages share: a link to one user and a row's danger action button. */
import { useState } from "preact/hooks";
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
 * disabled while `busy(row)`, absent where `hidden(row)`. With `confirm`, the first click only asks
 * (the row then shows "Confirm" and "Cancel"), for actions that cannot be undone and have no
 * dialog of their own, such as revoking.
 */
export function dangerColumn<T>(
  { text, label, onClick, busy, hidden, confirm = false }: {
    text: string;
    label: (row: T) => string;
    onClick: (row: T) => void;
    busy?: (row: T) => boolean;
    hidden?: (row: T) => boolean;
    confirm?: boolean;
  },
): Column<T> {
  return {
    label: "Actions",
    labelHidden: true,
    cellClass: "cell-actions",
    cell: (row) =>
      hidden?.(row) ? null : (
        <DangerButton
          text={text}
          label={label(row)}
          busy={busy?.(row) ?? false}
          confirm={confirm}
          onConfirmed={() => onClick(row)}
        />
      ),
  };
}

/** A row's danger button; with `confirm`, a second step ("Confirm" or "Cancel") before acting. */
function DangerButton(
  { text, label, busy, confirm, onConfirmed }: {
    text: string;
    label: string;
    busy: boolean;
    confirm: boolean;
    onConfirmed: () => void;
  },
) {
  const [asking, setAsking] = useState(false);
  if (asking) {
    return (
      <span class="confirm-actions" role="group" aria-label={`${label}?`}>
        <button
          type="button"
          class="btn btn-danger btn-sm"
          disabled={busy}
          aria-label={`Confirm: ${label}`}
          onClick={() => {
            setAsking(false);
            onConfirmed();
          }}
        >
          Confirm
        </button>
        <button
          type="button"
          class="btn btn-ghost btn-sm"
          aria-label={`Cancel: ${label}`}
          onClick={() => setAsking(false)}
        >
          Cancel
        </button>
      </span>
    );
  }
  return (
    <button
      type="button"
      class="btn btn-ghost btn-sm btn-danger-ghost"
      disabled={busy}
      onClick={() => confirm ? setAsking(true) : onConfirmed()}
      aria-label={label}
    >
      <Icon name="trash" />
      {text}
    </button>
  );
}
