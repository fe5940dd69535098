/** The bot page's audit log section. */
import { Empty, Link } from "../../common/components.tsx";
import { formatDateTime } from "../../common/format.ts";
import { getLog, logUrl } from "../api.ts";
import type { LogEntry, LogPage } from "../types.ts";
import { preloaded } from "../../common/preload.ts";
import { operationLabel, operationTone } from "../words.ts";
import { type Page, PagedList, usePaged } from "./paged.tsx";
import { botHref, Section } from "./section.tsx";

/** One log entry: what happened, when, who signed, its place in the chain; `bot` names the bot. */
export function LogItem({ e, bot = false }: { e: LogEntry; bot?: boolean }) {
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
          {bot && (
            <Link href={botHref(e.bot_id)}>
              <bdi>{e.bot_id}</bdi>
            </Link>
          )}
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
          {bot && e.prev_hash && (
            <code class="mono muted log-prev" title="the hash of the entry before">
              ← {e.prev_hash}
            </code>
          )}
        </div>
      </div>
    </li>
  );
}

/** The first page of bot `id`'s log, when the server rendered it. */
function firstLog(id: string): Page<LogEntry, number> | undefined {
  const answer = preloaded(logUrl(id));
  if (!answer || !("data" in answer)) return undefined;
  const page = answer.data as LogPage;
  return { items: page.entries, next: page.next_before ?? null };
}

/** The bot's audit log entries, loaded on their own. */
export function LogSection({ id }: { id: string }) {
  const paged = usePaged(
    async (before: number | undefined) => {
      const page = await getLog(id, before);
      return { items: page.entries, next: page.next_before ?? null };
    },
    [id],
    undefined,
    firstLog(id),
  );
  return (
    <Section id="log" title="Audit log" icon="clock" count={paged.items.length || undefined}>
      <p class="muted small">
        Every accepted change to this bot, newest first. Each entry's hash covers the one before it
        in <a href="/log">the whole log</a>, so history cannot be rewritten unnoticed.
      </p>
      <PagedList
        paged={paged}
        what="the log"
        more="Load more entries"
        empty={<Empty icon="clock" title="No log entries" />}
      >
        <ol class="timeline" id="log-timeline">
          {paged.items.map((e) => <LogItem key={e.seq} e={e} />)}
        </ol>
      </PagedList>
    </Section>
  );
}
