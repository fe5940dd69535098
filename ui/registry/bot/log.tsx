/** The bot page's audit log section. */
import { Empty } from "../../common/components.tsx";
import { formatDateTime } from "../../common/format.ts";
import { getLog, logUrl } from "../api.ts";
import type { LogEntry, LogPage } from "../types.ts";
import { preloaded } from "../../common/preload.ts";
import { operationLabel, operationTone } from "../words.ts";
import { type Page, PagedList, usePaged } from "./paged.tsx";
import { Section } from "./section.tsx";

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

/** The first page of bot `id`'s log, when the server rendered it. */
function firstLog(id: string): Page<LogEntry, number> | undefined {
  const answer = preloaded(logUrl(id));
  if (!answer || !("data" in answer)) return undefined;
  const page = answer.data as LogPage;
  return { items: page.entries, next: page.next_after };
}

/** The bot's audit log entries, loaded on their own. */
export function LogSection({ id }: { id: string }) {
  const paged = usePaged(
    async (after: number | undefined) => {
      const page = await getLog(id, after);
      return { items: page.entries, next: page.next_after };
    },
    [id],
    undefined,
    firstLog(id),
  );
  return (
    <Section id="log" title="Audit log" icon="clock" count={paged.items.length || undefined}>
      <p class="muted small">
        Every accepted change to this bot, oldest first. Each entry's hash covers the one before it,
        so history cannot be rewritten unnoticed.
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
