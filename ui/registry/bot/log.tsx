/** The bot page's audit log section. */
import { Empty, Link } from "../../common/components.tsx";
import { formatDateTime } from "../../common/format.ts";
import { getLog, logUrl } from "../api.ts";
import type { LogEntry, LogPage } from "../types.ts";
import { operationLabel, operationTone } from "../words.ts";
import { embedded, type Page, PagedList, type PageSource, usePaged } from "./paged.tsx";
import { botHref, Section } from "./section.tsx";

/**
 * One log entry: what happened, when, who signed, its place in the chain; `bot` names the bot,
 * `id` is the item's element id (where a "Load more" link lands).
 */
export function LogItem({ e, bot = false, id }: { e: LogEntry; bot?: boolean; id?: string }) {
  return (
    <li class={`timeline-item tone-${operationTone(e.operation)}`} data-seq={e.seq} id={id}>
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

/** A page of a bot's log, as the list holds it (its cursor, a seq, as text). */
function page(answer: LogPage): Page<LogEntry> {
  const next = answer.next_before ?? null;
  return { items: answer.entries, next: next === null ? null : String(next) };
}

/** Bot `id`'s log, newest first, from the API or from what the server embedded. */
function logSource(id: string): PageSource<LogEntry> {
  const before = (cursor?: string) => cursor === undefined ? undefined : Number(cursor);
  return {
    fetch: async (cursor, limit) => page(await getLog(id, before(cursor), limit)),
    preloaded: (cursor, limit) => embedded(logUrl(id, before(cursor), limit), page),
  };
}

/** The bot's audit log entries, as many pages as the page URL's query `search` says. */
export function LogSection({ id, search }: { id: string; search: string }) {
  const paged = usePaged(logSource(id), { list: "log", path: botHref(id), search }, [id]);
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
          {paged.items.map((e, i) => <LogItem key={e.seq} e={e} id={paged.anchor(i)} />)}
        </ol>
      </PagedList>
    </Section>
  );
}
