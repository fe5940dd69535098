/**
 * The whole audit log, newest first (`/log`): one page per URL (`before`, and the `back` trail of
 * the pages before it, as the search pages do), so paging survives a reload or a shared link. Once
 * hydrated, the browser checks the page's hashes and links itself (log_check.ts).
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { Empty, ResourceStatus, useResource } from "../common/components.tsx";
import { Icon } from "../common/icons.tsx";
import { preloaded } from "../common/preload.ts";
import { getWholeLog, LOG_PAGE, wholeLogUrl } from "./api.ts";
import { LogItem } from "./bot/log.tsx";
import { checkLogPage } from "./log_check.ts";
import { PrevNext } from "./pager.tsx";
import type { LogEntry } from "./types.ts";

/** A page of the log as its URL says: `before` (a seq) and the trail of the pages before it. */
export function readLogQuery(search: string): { before: string; back: string[] } {
  const p = new URLSearchParams(search);
  const seq = (v: string | null) => (v && /^\d{1,15}$/.test(v) ? v : "");
  return {
    before: seq(p.get("before")),
    back: p.getAll("back").map(seq).filter((v) => v !== ""),
  };
}

function logHref(before: string, back: string[]): string {
  const p = new URLSearchParams();
  if (before) p.set("before", before);
  for (const b of back) p.append("back", b);
  const s = p.toString();
  return s ? `/log?${s}` : "/log";
}

/** The check of the entries shown: running, passed, or what failed. */
function Check({ entries }: { entries: LogEntry[] }) {
  const result = useSignal<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    result.value = undefined;
    checkLogPage(entries).then((r) => live && (result.value = r), () => {
      if (live) result.value = "this browser cannot compute SHA-256 here";
    });
    return () => {
      live = false;
    };
  }, [entries]);
  if (result.value === null) {
    return (
      <p class="notice notice-success log-check" role="status">
        <Icon name="check" class="notice-icon" />
        Checked in your browser: every entry on this page matches its hash and links to the one
        before it.
      </p>
    );
  }
  if (typeof result.value === "string") {
    return (
      <p class="notice notice-danger log-check" role="alert">
        <Icon name="alert" class="notice-icon" />
        Check failed: {result.value}.
      </p>
    );
  }
  return null;
}

/** The audit log page for the URL query `search`. */
export function LogPage({ search }: { search: string }) {
  const { before, back } = readLogQuery(search);
  const [page] = useResource(
    () => getWholeLog(before || undefined),
    [before],
    preloaded(
      wholeLogUrl(before || undefined),
    ),
  );
  useEffect(() => {
    document.title = "Audit log · Signet registry";
  }, []);
  const entries = page.data?.entries ?? [];
  const pageNo = before ? back.length + 2 : 1;
  return (
    <>
      <div class="page-header">
        <div>
          <h1>Audit log</h1>
          <p class="page-description">
            Every accepted change to every bot, newest first, {LOG_PAGE}{" "}
            per page. Each entry's hash covers the one before it, so history cannot be rewritten
            unnoticed: how to check the whole chain yourself is in{" "}
            <a href="/v1/docs/protocol#8-verifying-the-audit-log">the protocol, section 8</a>.
          </p>
        </div>
      </div>
      <ResourceStatus resource={page} loading="Loading the log…" failed="Could not load the log" />
      {entries.length > 0 && <Check entries={entries} />}
      {page.data && entries.length === 0 && (
        <div class="card">
          <Empty icon="clock" title={pageNo > 1 ? "Nothing on this page" : "No entries yet"} />
        </div>
      )}
      {entries.length > 0 && (
        <section class="card section" aria-label={`Log page ${pageNo}`}>
          <ol class="timeline" id="log-timeline">
            {entries.map((e) => <LogItem key={e.seq} e={e} bot />)}
          </ol>
        </section>
      )}
      {page.data && (
        <PrevNext
          prev={pageNo > 1 ? logHref(back.at(-1) ?? "", back.slice(0, -1)) : null}
          next={page.data.next_before
            ? logHref(String(page.data.next_before), before ? [...back, before] : [])
            : null}
          prevLabel="Newer"
          nextLabel="Older"
        />
      )}
    </>
  );
}
