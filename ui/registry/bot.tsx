/** One bot's page: identity, keys, policy in plain words, attestations and the audit log. */
import { useEffect } from "preact/hooks";
import { CopyButton, Link, ResourceStatus, Time, useResource } from "../common/components.tsx";
import { formatDateTime } from "../common/format.ts";
import { Icon } from "../common/icons.tsx";
import { botUrl, getBot } from "./api.ts";
import { preloaded } from "../common/preload.ts";
import { StatusBadge } from "./badges.tsx";
import { NotFound } from "../common/not_found.tsx";
import { KeysSection } from "./bot/keys.tsx";
import { PolicySection } from "./bot/policy.tsx";
import { AttestationsSection } from "./bot/attestations.tsx";
import { LogSection } from "./bot/log.tsx";
import { Aside } from "./bot/aside.tsx";

/** The page of bot `id`; the URL's query `search` says how much of each list shows. */
export function BotPage({ id, search }: { id: string; search: string }) {
  const [bot, reload] = useResource(() => getBot(id), [id], preloaded(botUrl(id)));
  const missing = bot.status === "error" && bot.code === 404;
  useEffect(() => {
    const name = missing ? "Bot not found" : bot.data?.name || id;
    document.title = `${name} · Signet registry`;
  }, [bot.data, id, missing]);

  // A bot that does not exist is a "not found" page, not an outage: no Retry.
  if (missing) {
    return (
      <NotFound path={id} title="Bot not found" lead="No bot in this registry has the id">
        <Link href="/" class="btn btn-secondary">Browse bots</Link>
      </NotFound>
    );
  }

  return (
    <>
      <Link href="/" class="back-link">
        <Icon name="arrowLeft" /> All bots
      </Link>
      {!bot.data && (
        <h1 class="visually-hidden">
          <bdi>{id}</bdi>
        </h1>
      )}
      <ResourceStatus
        resource={bot}
        loading="Loading bot…"
        failed="Could not load this bot"
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
                <h1>
                  <bdi>{bot.data.name || bot.data.bot_id}</bdi>
                </h1>
                <StatusBadge status={bot.data.status} />
              </div>
              <div class="bot-id">
                <code class="mono">
                  <bdi>{bot.data.bot_id}</bdi>
                </code>
                <CopyButton text={bot.data.bot_id} what="bot id" />
              </div>
              {bot.data.description && (
                <p class="bot-desc">
                  <bdi>{bot.data.description}</bdi>
                </p>
              )}
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
                    ? (
                      <>
                        Reason: <bdi>{bot.data.revocation_reason}</bdi>
                      </>
                    )
                    : "Do not trust signatures made with its keys."}
                </p>
              </div>
            </div>
          )}
          <div class="bot-layout">
            <div class="bot-main">
              <KeysSection keys={bot.data.keys} />
              <PolicySection bot={bot.data} />
              <AttestationsSection id={id} search={search} />
              <LogSection id={id} search={search} />
            </div>
            <Aside bot={bot.data} search={search} />
          </div>
        </>
      )}
    </>
  );
}
