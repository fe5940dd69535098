/** The bot page's audit log section. */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { Empty, errorMessage, ErrorNotice, Loading } from "../../common/components.tsx";
import { formatDateTime } from "../../common/format.ts";
import { getLog } from "../api.ts";
import type { LogEntry } from "../types.ts";
import { operationLabel, operationTone } from "../words.ts";
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

/** The bot's audit log entries, loaded on their own. */
export function LogSection({ id }: { id: string }) {
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
