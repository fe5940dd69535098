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
  ResourceStatus,
  Time,
  useResource,
} from "../common/components.tsx";
import { plural } from "../common/format.ts";
import { Icon } from "../common/icons.tsx";
import { adminApi, serviceInfo } from "./session.ts";
import type { Invite, ServiceInfo } from "./types.ts";

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

/** The Invites page. */
export function InvitesPage() {
  const [invites, reload] = useResource(
    () => adminApi<{ invites: Invite[] }>("/invites").then((r) => r.invites),
    [],
  );
  const minted = useSignal<string | null>(null);
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
      const { code } = await adminApi<{ code: string }>("/invites", { method: "POST" });
      minted.value = code;
      reload();
    } catch (err) {
      mintError.value = errorMessage(err);
    } finally {
      minting.value = false;
    }
  };

  const unused = invites.data?.filter((i) => i.state === "unused").length ?? 0;

  return (
    <>
      <PageHeader
        title="Invites"
        description="Accounts are invite-only: each code creates exactly one account."
        actions={
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
        }
      />
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
          <p class="muted">Send this code to the person you invite. It works once.</p>
          <CopyField value={minted.value} what="invite code" />
          <SignupSteps code={minted.value} />
        </section>
      )}
      <section class="card card-flush" aria-labelledby="invites-title">
        <div class="card-head card-head-padded">
          <h2 id="invites-title">All invites</h2>
          {invites.data && invites.data.length > 0 && (
            <span class="muted">
              {plural(invites.data.length, "invite")} · {unused} unused
            </span>
          )}
        </div>
        <ResourceStatus
          resource={invites}
          loading="Loading invites…"
          failed="Could not load invites"
          onRetry={reload}
          padded
        />
        {invites.data?.length === 0 && (
          <Empty icon="ticket" title="No invites yet">
            Create one to let the first user sign up.
          </Empty>
        )}
        {invites.data && invites.data.length > 0 && (
          <table class="table" id="invites-table">
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">State</th>
                <th scope="col">Used by</th>
                <th scope="col">Created</th>
                <th scope="col">Used</th>
              </tr>
            </thead>
            <tbody>
              {invites.data.map((i) => (
                <tr key={i.code} data-code={i.code}>
                  <td data-label="Code" class="cell-main">
                    <span class="code-with-copy">
                      <code class="mono">{i.code}</code>
                      {i.state === "unused" && (
                        <CopyButton text={i.code} what={`invite ${i.code}`} />
                      )}
                    </span>
                  </td>
                  <td data-label="State">
                    {i.state === "unused"
                      ? <Badge tone="success">unused</Badge>
                      : <Badge tone="neutral">used</Badge>}
                  </td>
                  <td data-label="Used by" class={i.used_at ? undefined : "cell-empty"}>
                    {i.used_by
                      ? <strong>{i.used_by.username}</strong>
                      : <span class="muted">—</span>}
                  </td>
                  <td data-label="Created">
                    <Time iso={i.created_at} />
                  </td>
                  <td data-label="Used" class={i.used_at ? undefined : "cell-empty"}>
                    <Time iso={i.used_at} />
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
