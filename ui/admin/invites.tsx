/** Invites: mint a code, show how a new user signs up with it, and list every invite. */
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import {
  Badge,
  CopyButton,
  CopyField,
  Empty,
  errorMessage,
  ErrorNotice,
  PageHeader,
  Time,
} from "../common/components.tsx";
import { Icon } from "../common/icons.tsx";
import type { Column } from "../common/table.tsx";
import { navigate } from "../common/router.ts";
import { dangerColumn, UserLink } from "./columns.tsx";
import { AdminList, AGE_SORTS, hrefWith, usePage, useQuery } from "./paged.tsx";
import { adminApi, serviceInfo } from "./session.ts";
import type { Invite, InvitesPage as InvitesReply, ServiceInfo } from "./types.ts";

/** The SSH command that starts interactive signup on this server. */
export function sshSignupCommand(info: ServiceInfo | null): string | null {
  if (!info?.ssh) return null;
  const { host, port } = info.ssh;
  return port === 22 ? `ssh git@${host}` : `ssh -p ${port} git@${host}`;
}

/** What a new user runs with `code`. */
function SignupSteps({ code }: { code: string }) {
  const info = serviceInfo.value;
  const ssh = sshSignupCommand(info);
  return (
    <div class="signup-steps">
      <h3>How the new user signs up</h3>
      {ssh && (
        <div class="step">
          <p>
            <strong>Over SSH</strong>{" "}
            — connect with their ed25519 key, then enter a username and the invite code when asked:
          </p>
          <CopyField value={ssh} what="SSH signup command" prompt="$" />
        </div>
      )}
      <div class="step">
        <p>
          <strong>With the Signet CLI</strong>
          {info && (
            <>
              {" "}— pointed at <code>{info.base_url}</code>
            </>
          )}:
        </p>
        <CopyField
          value={`signet register --invite ${code}`}
          what="CLI signup command"
          prompt="$"
        />
      </div>
    </div>
  );
}

/** The table's columns; `onRevoke` revokes an invite nobody used. */
function columns(onRevoke: (i: Invite) => void, busy: string | null): Column<Invite>[] {
  return [
    {
      label: "Code",
      cellClass: "cell-main",
      cell: (i) => (
        <span class="code-with-copy">
          <code class="mono">{i.code}</code>
          {i.state === "unused" && <CopyButton text={i.code} what={`invite ${i.code}`} />}
        </span>
      ),
    },
    {
      label: "State",
      cell: (i) =>
        i.state === "unused"
          ? <Badge tone="success">unused</Badge>
          : i.state === "expired"
          ? <Badge tone="warning">expired</Badge>
          : <Badge tone="neutral">used</Badge>,
    },
    {
      label: "Used by",
      cellClass: (i) => i.used_at ? undefined : "cell-empty",
      cell: (i) =>
        i.used_by ? <UserLink username={i.used_by.username} /> : <span class="muted">—</span>,
    },
    { label: "Created", cell: (i) => <Time iso={i.created_at} /> },
    {
      label: "Used",
      cellClass: (i) => i.used_at ? undefined : "cell-empty",
      cell: (i) => <Time iso={i.used_at} />,
    },
    {
      label: "Expires",
      cellClass: (i) => i.used_at ? "cell-empty" : undefined,
      cell: (i) =>
        i.used_at ? <span class="muted">—</span> : <Time iso={i.expires_at} empty="never" />,
    },
    dangerColumn({
      text: "Revoke",
      label: (i) => `Revoke invite ${i.code}`,
      confirm: true,
      onClick: onRevoke,
      busy: (i) => busy === i.code,
      hidden: (i) => i.state === "used",
    }),
  ];
}

/** The Invites page. */
export function InvitesPage() {
  const [invites, reload] = usePage<InvitesReply>("/invites");
  const state = useQuery().get("state") ?? "";
  const minted = useSignal<string | null>(null);
  const lifetime = useSignal("7");
  const revoking = useSignal<string | null>(null);
  const revokeNote = useSignal<{ ok: boolean; text: string } | null>(null);

  const revoke = async (i: Invite) => {
    revoking.value = i.code;
    revokeNote.value = null;
    try {
      await adminApi<{ revoked: string }>(`/invites/${encodeURIComponent(i.code)}`, {
        method: "DELETE",
      });
      revokeNote.value = { ok: true, text: `Revoked invite ${i.code}.` };
      if (minted.value === i.code) minted.value = null;
      reload();
    } catch (err) {
      revokeNote.value = { ok: false, text: errorMessage(err) };
    } finally {
      revoking.value = null;
    }
  };
  const minting = useSignal(false);
  const mintError = useSignal<string | null>(null);
  const mintedRef = useRef<HTMLElement>(null);
  useEffect(() => {
    // Move keyboard focus to the new code so the next Tab reaches its copy button.
    if (minted.value) mintedRef.current?.focus();
  }, [minted.value]);

  const mint = async () => {
    minting.value = true;
    mintError.value = null;
    try {
      const { code } = await adminApi<{ code: string }>("/invites", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ expires_in_days: Number(lifetime.value) }),
      });
      minted.value = code;
      reload();
    } catch (err) {
      mintError.value = errorMessage(err);
    } finally {
      minting.value = false;
    }
  };

  return (
    <>
      <PageHeader
        title="Invites"
        description="Accounts are invite-only: each code creates exactly one account."
        actions={
          <>
            <label class="sort-select">
              <span class="muted">Expires in</span>
              <select
                id="invite-lifetime"
                class="select"
                value={lifetime.value}
                onChange={(e) => (lifetime.value = (e.currentTarget as HTMLSelectElement).value)}
              >
                <option value="1">1 day</option>
                <option value="7">7 days</option>
                <option value="30">30 days</option>
                <option value="90">90 days</option>
                <option value="365">365 days</option>
              </select>
            </label>
            <button
              type="button"
              class="btn btn-primary"
              onClick={mint}
              disabled={minting.value}
            >
              {minting.value
                ? <span class="spinner spinner-sm" aria-hidden="true" />
                : <Icon name="plus" />}
              Create invite
            </button>
          </>
        }
      />
      {revokeNote.value && (
        revokeNote.value.ok
          ? <p class="notice notice-success" role="status">{revokeNote.value.text}</p>
          : <ErrorNotice title="Could not revoke the invite" message={revokeNote.value.text} />
      )}
      {mintError.value && (
        <ErrorNotice title="Could not create an invite" message={mintError.value} />
      )}
      {minted.value && (
        <section
          ref={mintedRef}
          class="card card-accent minted"
          aria-labelledby="minted-title"
          tabIndex={-1}
        >
          <div class="card-head">
            <h2 id="minted-title">
              <Icon name="check" class="text-success" /> Invite created
            </h2>
            <button
              type="button"
              class="btn btn-ghost btn-sm"
              onClick={() => (minted.value = null)}
            >
              Dismiss
            </button>
          </div>
          <p class="muted">
            Send this code to the person you invite. It works once, until it expires.
          </p>
          <CopyField value={minted.value} what="invite code" />
          <SignupSteps code={minted.value} />
        </section>
      )}
      <AdminList
        id="invites"
        noun="invites"
        filters={
          <label class="sort-select">
            <span class="muted">Show</span>
            <select
              id="invites-state"
              class="select"
              value={state}
              onChange={(e) =>
                navigate(hrefWith({ state: (e.currentTarget as HTMLSelectElement).value }))}
            >
              <option value="">All invites</option>
              <option value="unused">Unused</option>
              <option value="used">Used</option>
              <option value="expired">Expired</option>
            </select>
          </label>
        }
        sorts={AGE_SORTS}
        summary={invites.data && (
          <span class="muted">{invites.data.unused.toLocaleString("en-US")} unused in all</span>
        )}
        empty={
          <Empty icon="ticket" title="No invites yet">
            Create one to let the first user sign up.
          </Empty>
        }
        resource={invites}
        reload={reload}
        rows={invites.data?.invites ?? []}
        table={{
          columns: columns(revoke, revoking.value),
          rowKey: (i) => i.code,
          rowData: (i) => ({ "data-code": i.code }),
        }}
      />
    </>
  );
}
