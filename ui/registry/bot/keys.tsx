/** The bot page's keys section: each key with its fingerprint and status. */
import { CopyButton, Time } from "../../common/components.tsx";
import { Icon } from "../../common/icons.tsx";
import { StatusBadge } from "../badges.tsx";
import type { Key } from "../types.ts";

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
      <div class="table-wrap">
        <table class="table" id="keys-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Revoked</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.key_id} data-key-id={k.key_id}>
                <td data-label="Key" class="cell-main">
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
                </td>
                <td data-label="Status">
                  <StatusBadge status={k.status ?? "active"} />
                </td>
                <td data-label="Created" class="nowrap">
                  <Time iso={k.created_at} />
                </td>
                <td
                  data-label="Revoked"
                  class={k.revoked_at ? "cell-revoked" : "cell-revoked cell-empty"}
                >
                  {k.revoked_at
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
                    : <span class="muted">—</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
