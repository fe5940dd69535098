/** One bot's page: identity, keys, policy in plain words, attestations and the audit log. */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { ComponentChildren } from "preact";
import {
  CopyButton,
  Empty,
  errorMessage,
  ErrorNotice,
  Link,
  Loading,
  ResourceStatus,
  Time,
  useResource,
} from "../common/components.tsx";
import { formatDateTime } from "../common/format.ts";
import { Icon, type IconName } from "../common/icons.tsx";
import { type AttestationRole, getAttestations, getBot, getLog } from "./api.ts";
import { StatusBadge } from "./badges.tsx";
import type { Attestation, Bot, Key, LogEntry } from "./types.ts";
import {
  defaultSentence,
  keyRefText,
  operationLabel,
  operationTone,
  ruleSentence,
} from "./words.ts";

function botHref(id: string): string {
  return `/bots/${encodeURIComponent(id)}`;
}

function Section(
  { id, title, icon, count, children }: {
    id: string;
    title: string;
    icon: IconName;
    count?: number;
    children: ComponentChildren;
  },
) {
  return (
    <section class="card section" aria-labelledby={`${id}-title`} id={id}>
      <div class="card-head">
        <h2 id={`${id}-title`}>
          <Icon name={icon} class="muted" />
          {title}
          {count !== undefined && <span class="count">{count}</span>}
        </h2>
      </div>
      {children}
    </section>
  );
}

function KeysSection({ keys }: { keys: Key[] }) {
  return (
    <section class="card card-flush section" aria-labelledby="keys-title" id="keys">
      <div class="card-head card-head-padded">
        <h2 id="keys-title">
          <Icon name="key" class="muted" />
          Keys
          <span class="count">{keys.length}</span>
        </h2>
      </div>
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
                  <code class="mono">{k.key_id}</code>
                  {k.label && <span class="muted">· {k.label}</span>}
                </div>
                {k.origin?.rotated_from && (
                  <div class="key-note muted">rotated from {k.origin.rotated_from}</div>
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
                        <div class="key-note muted">“{k.revocation_reason}”</div>
                      )}
                      {k.replaced_by && (
                        <div class="key-note muted">replaced by {k.replaced_by}</div>
                      )}
                    </div>
                  )
                  : <span class="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function PolicySection({ bot }: { bot: Bot }) {
  const policy = bot.policy;
  if (!policy) return null;
  const signers = Object.entries(policy.signers ?? {});
  return (
    <Section id="policy" title="Policy" icon="shield">
      <ul class="rules">
        {policy.rules.map((r) => (
          <li key={r.operation} class="rule">
            <span class="rule-text">{ruleSentence(r)}</span>
            {r.description && <span class="muted rule-desc">{r.description}</span>}
          </li>
        ))}
        <li class="rule rule-default">
          <span class="rule-text">{defaultSentence(policy)}</span>
        </li>
      </ul>
      {signers.length > 0 && (
        <div class="signers">
          <h3>Named signers</h3>
          <dl class="signer-list">
            {signers.map(([name, ref]) => (
              <div key={name} class="signer">
                <dt>
                  <code class="mono">{name}</code>
                </dt>
                <dd>
                  {ref.bot_id && ref.bot_id !== bot.bot_id
                    ? (
                      <>
                        key <code class="mono">{ref.key_id}</code> of controller{" "}
                        <Link href={botHref(ref.bot_id)}>{ref.bot_id}</Link>
                      </>
                    )
                    : (
                      <>
                        key <code class="mono">{keyRefText(ref)}</code> of this bot
                      </>
                    )}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </Section>
  );
}

function AttestationItem({ a, received }: { a: Attestation; received: boolean }) {
  const other = received ? a.issuer : a.subject;
  return (
    <li class="attestation">
      <div class="attestation-claim">{a.claim}</div>
      <div class="attestation-meta muted">
        {received ? "from " : "about "}
        <Link href={botHref(other)}>{other}</Link>
        {a.published_at && (
          <>
            {" · "}
            <Time iso={a.published_at} />
          </>
        )}
        {a.signature && (
          <>
            {" · signed with "}
            <code class="mono">{a.signature.key_id}</code>
          </>
        )}
      </div>
      {a.evidence && a.evidence.length > 0 && (
        <ul class="evidence">
          {a.evidence.map((e, i) => (
            <li key={i}>
              <span class="evidence-type">{e.type}</span>
              {/^https?:\/\//.test(e.value)
                ? (
                  <a href={e.value} rel="noopener noreferrer nofollow" target="_blank">
                    {e.value}
                  </a>
                )
                : <span>{e.value}</span>}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function AttestationList(
  { id, role, onCount }: { id: string; role: AttestationRole; onCount: (n: number) => void },
) {
  const items = useSignal<Attestation[]>([]);
  const next = useSignal<string | null>(null);
  const state = useSignal<string>("loading");
  const load = async (cursor?: string) => {
    state.value = cursor ? "more" : "loading";
    try {
      const page = await getAttestations(id, role, cursor);
      items.value = cursor ? [...items.value, ...page.attestations] : page.attestations;
      next.value = page.next_cursor ?? null;
      state.value = "ready";
      onCount(items.value.length);
    } catch (err) {
      state.value = errorMessage(err);
    }
  };
  useEffect(() => {
    load();
  }, [id, role]);
  const failed = !["loading", "ready", "more"].includes(state.value);
  const listId = role === "subject" ? "attestations-received" : "attestations-issued";

  return (
    <div>
      <h3>{role === "subject" ? "Received" : "Issued"}</h3>
      {state.value === "loading" && <Loading label="Loading attestations…" />}
      {failed && (
        <ErrorNotice
          title="Could not load attestations"
          message={state.value}
          onRetry={() => load()}
        />
      )}
      {!failed && state.value !== "loading" && items.value.length === 0 && (
        <p class="muted small">
          {role === "subject"
            ? "No other bot has attested to this one."
            : "This bot has not attested to any other."}
        </p>
      )}
      {items.value.length > 0 && (
        <ul class="attestations" id={listId}>
          {items.value.map((a, i) => (
            <AttestationItem key={a.attestation_id ?? i} a={a} received={role === "subject"} />
          ))}
        </ul>
      )}
      {next.value && (
        <button
          type="button"
          class="btn btn-secondary btn-sm load-more"
          disabled={state.value === "more"}
          onClick={() => load(next.value!)}
        >
          Load more
        </button>
      )}
    </div>
  );
}

function AttestationsSection({ id }: { id: string }) {
  const received = useSignal<number | undefined>(undefined);
  const issued = useSignal<number | undefined>(undefined);
  const total = received.value !== undefined && issued.value !== undefined
    ? received.value + issued.value
    : undefined;
  return (
    <Section id="attestations" title="Attestations" icon="check" count={total}>
      <div class="attestation-cols">
        <AttestationList id={id} role="subject" onCount={(n) => (received.value = n)} />
        <AttestationList id={id} role="issuer" onCount={(n) => (issued.value = n)} />
      </div>
    </Section>
  );
}

function LogItem({ e }: { e: LogEntry }) {
  return (
    <li class={`timeline-item tone-${operationTone(e.operation)}`} data-seq={e.seq}>
      <span class="timeline-dot" aria-hidden="true" />
      <div class="timeline-body">
        <div class="timeline-head">
          <strong>{operationLabel(e.operation)}</strong>
          <code class="mono muted">{e.operation}</code>
          <span class="timeline-time">
            <time dateTime={e.created_at} title={e.created_at}>{formatDateTime(e.created_at)}</time>
          </span>
        </div>
        <div class="timeline-meta muted">
          <span>#{e.seq}</span>
          {e.version !== undefined && <span>version {e.version}</span>}
          {e.signers && e.signers.length > 0 && (
            <span>
              signed by {e.signers.map((s) => s.key).join(", ")}
            </span>
          )}
        </div>
        <div class="timeline-hash">
          <code class="mono" title={`hash ${e.hash}\nprevious ${e.prev_hash ?? "—"}`}>
            {e.hash}
          </code>
        </div>
      </div>
    </li>
  );
}

function LogSection({ id }: { id: string }) {
  const entries = useSignal<LogEntry[]>([]);
  const next = useSignal<number | null>(null);
  const state = useSignal<string>("loading");
  const load = async (after?: number) => {
    state.value = after === undefined ? "loading" : "more";
    try {
      const page = await getLog(id, after);
      entries.value = after === undefined ? page.entries : [...entries.value, ...page.entries];
      next.value = page.next_after;
      state.value = "ready";
    } catch (err) {
      state.value = errorMessage(err);
    }
  };
  useEffect(() => {
    load();
  }, [id]);
  const failed = !["loading", "ready", "more"].includes(state.value);

  return (
    <Section id="log" title="Audit log" icon="clock" count={entries.value.length || undefined}>
      <p class="muted small">
        Every accepted change to this bot, oldest first. Each entry's hash covers the one before it,
        so history cannot be rewritten unnoticed.
      </p>
      {state.value === "loading" && <Loading label="Loading the log…" />}
      {failed && (
        <ErrorNotice
          title="Could not load the log"
          message={state.value}
          onRetry={() => load()}
        />
      )}
      {state.value !== "loading" && !failed && entries.value.length === 0 && (
        <Empty icon="clock" title="No log entries" />
      )}
      {entries.value.length > 0 && (
        <ol class="timeline" id="log-timeline">
          {entries.value.map((e) => <LogItem key={e.seq} e={e} />)}
        </ol>
      )}
      {next.value !== null && (
        <button
          type="button"
          class="btn btn-secondary btn-sm load-more"
          disabled={state.value === "more"}
          onClick={() => load(next.value!)}
        >
          Load more entries
        </button>
      )}
    </Section>
  );
}

function Aside({ bot }: { bot: Bot }) {
  return (
    <aside class="bot-aside">
      <Section id="owner" title="Owner" icon="users">
        {bot.owner
          ? (
            <div class="owner">
              <strong>{bot.owner.name}</strong>
              {bot.owner.url && (
                <a href={bot.owner.url} rel="noopener noreferrer nofollow" target="_blank">
                  {bot.owner.url.replace(/^https?:\/\//, "")}
                </a>
              )}
              {bot.owner.email && <a href={`mailto:${bot.owner.email}`}>{bot.owner.email}</a>}
            </div>
          )
          : <p class="muted small">No owner given.</p>}
      </Section>
      <Section id="endpoints" title="Endpoints" icon="link" count={bot.endpoints?.length ?? 0}>
        {bot.endpoints && bot.endpoints.length > 0
          ? (
            <ul class="endpoints">
              {bot.endpoints.map((e, i) => (
                <li key={i}>
                  <span class="endpoint-type">{e.type}</span>
                  <code class="mono endpoint-url">{e.url}</code>
                  {e.description && <span class="muted small">{e.description}</span>}
                </li>
              ))}
            </ul>
          )
          : <p class="muted small">No endpoints published.</p>}
      </Section>
      <Section
        id="capabilities"
        title="Capabilities"
        icon="ticket"
        count={bot.capabilities?.length ?? 0}
      >
        {bot.capabilities && bot.capabilities.length > 0
          ? (
            <ul class="chips">
              {bot.capabilities.map((c) => (
                <li key={c}>
                  <Link class="chip" href={`/?capability=${encodeURIComponent(c)}`}>{c}</Link>
                </li>
              ))}
            </ul>
          )
          : <p class="muted small">No capabilities declared.</p>}
      </Section>
      <Section
        id="controllers"
        title="Controllers"
        icon="shield"
        count={bot.controllers?.length ?? 0}
      >
        {bot.controllers && bot.controllers.length > 0
          ? (
            <ul class="controllers">
              {bot.controllers.map((c) => (
                <li key={c.bot_id}>
                  <Link href={botHref(c.bot_id)}>{c.bot_id}</Link>
                  {c.label && <span class="muted small">{c.label}</span>}
                </li>
              ))}
            </ul>
          )
          : <p class="muted small">No other bot can sign for this one.</p>}
      </Section>
      {bot.delegation && (
        <Section id="delegation" title="Delegated by" icon="users">
          <p class="delegation">{bot.delegation.principal}</p>
          {bot.delegation.scopes && bot.delegation.scopes.length > 0 && (
            <ul class="chips">
              {bot.delegation.scopes.map((s) => (
                <li key={s}>
                  <span class="chip chip-static">{s}</span>
                </li>
              ))}
            </ul>
          )}
        </Section>
      )}
    </aside>
  );
}

/** The page of bot `id`. */
export function BotPage({ id }: { id: string }) {
  const [bot, reload] = useResource(() => getBot(id), [id]);
  useEffect(() => {
    const name = bot.data?.name || id;
    document.title = `${name} · Signet registry`;
  }, [bot.data, id]);

  return (
    <>
      <Link href="/" class="back-link">
        <Icon name="arrowLeft" /> All bots
      </Link>
      <ResourceStatus
        resource={bot}
        loading="Loading bot…"
        failed={`Could not load ${id}`}
        onRetry={reload}
      />
      {bot.data && (
        <>
          <div class="bot-header">
            <span class="bot-avatar bot-avatar-lg" aria-hidden="true">
              <Icon name="bot" />
            </span>
            <div class="bot-header-text">
              <div class="bot-title">
                <h1>{bot.data.name || bot.data.bot_id}</h1>
                <StatusBadge status={bot.data.status} />
              </div>
              <div class="bot-id">
                <code class="mono">{bot.data.bot_id}</code>
                <CopyButton text={bot.data.bot_id} what="bot id" />
              </div>
              {bot.data.description && <p class="bot-desc">{bot.data.description}</p>}
              <div class="bot-facts muted">
                {bot.data.created_at && (
                  <span>
                    created <Time iso={bot.data.created_at} />
                  </span>
                )}
                {bot.data.updated_at && (
                  <span>
                    updated <Time iso={bot.data.updated_at} />
                  </span>
                )}
                {bot.data.version !== undefined && <span>version {bot.data.version}</span>}
              </div>
            </div>
          </div>
          {bot.data.status === "revoked" && (
            <div class="notice notice-danger" role="status">
              <Icon name="alert" class="notice-icon" />
              <div class="notice-text">
                <strong>This identity is revoked</strong>
                <p>
                  {bot.data.revoked_at ? `Since ${formatDateTime(bot.data.revoked_at)}. ` : ""}
                  {bot.data.revocation_reason
                    ? `Reason: ${bot.data.revocation_reason}`
                    : "Do not trust signatures made with its keys."}
                </p>
              </div>
            </div>
          )}
          <div class="bot-layout">
            <div class="bot-main">
              <KeysSection keys={bot.data.keys} />
              <PolicySection bot={bot.data} />
              <AttestationsSection id={id} />
              <LogSection id={id} />
            </div>
            <Aside bot={bot.data} />
          </div>
        </>
      )}
    </>
  );
}
