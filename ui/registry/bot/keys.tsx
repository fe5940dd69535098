/** The bot page's keys section: each key with its fingerprint and status. */
import { CopyButton, Time } from "../../common/components.tsx";
import { Icon } from "../../common/icons.tsx";
import { type Column, DataTable } from "../../common/table.tsx";
import { StatusBadge } from "../badges.tsx";
import type { Key } from "../types.ts";

/** The columns of the keys table. */
const KEY_COLUMNS: Column<Key>[] = [
  {
    label: "Key",
    cellClass: "cell-main",
    cell: (k) => (
      <>
        <div class="key-id">
          <code class="mono">
            <bdi>{k.key_id}</bdi>
          </code>
          {k.label && (
            <span class="muted">
              · <bdi>{k.label}</bdi>
            </span>
          )}
        </div>
        {k.origin?.rotated_from && (
          <div class="key-note muted">
            rotated from <bdi>{k.origin.rotated_from}</bdi>
          </div>
        )}
        <span class="pubkey">
          <code class="mono pubkey-value" title={`Ed25519 public key ${k.public_key}`}>
            {k.public_key}
          </code>
          <CopyButton text={k.public_key} what={`public key ${k.key_id}`} />
        </span>
      </>
    ),
  },
  { label: "Status", cell: (k) => <StatusBadge status={k.status ?? "active"} /> },
  { label: "Created", cellClass: "nowrap", cell: (k) => <Time iso={k.created_at} /> },
  {
    label: "Revoked",
    cellClass: (k) => k.revoked_at ? "cell-revoked" : "cell-revoked cell-empty",
    cell: (k) =>
      k.revoked_at
        ? (
          <div>
            <Time iso={k.revoked_at} />
            {k.revocation_reason && (
              <div class="key-note muted">
                “<bdi>{k.revocation_reason}</bdi>”
              </div>
            )}
            {k.replaced_by && (
              <div class="key-note muted">
                replaced by <bdi>{k.replaced_by}</bdi>
              </div>
            )}
          </div>
        )
        : <span class="muted">—</span>,
  },
];

/** The bot's keys, each with its id, fingerprint and status. */
export function KeysSection({ keys }: { keys: Key[] }) {
  return (
    <section class="card card-flush section" aria-labelledby="keys-title" id="keys">
      <div class="card-head card-head-padded">
        <h2 id="keys-title">
          <Icon name="key" class="muted" />
          Keys
          <span class="count">{keys.length}</span>
        </h2>
      </div>
      <DataTable
        id="keys-table"
        rows={keys}
        columns={KEY_COLUMNS}
        rowKey={(k) => k.key_id}
        rowData={(k) => ({ "data-key-id": k.key_id })}
      />
    </section>
  );
}
