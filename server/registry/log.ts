/** Reading the audit log: per bot, or the whole log in order for export and replay. */
import { DomainError } from "../../protocol/errors.ts";
import { findBot } from "./bots.ts";
import type { RegistryContext } from "./context.ts";
import type { LogEntryT } from "../../protocol/registry/schemas.ts";
import { parseLimit } from "./search.ts";

/** Default and largest page of log entries. */
export const LOG_DEFAULT_LIMIT = 100;
/** Largest page of log entries. */
export const LOG_MAX_LIMIT = 1000;

/** A sequence number from the query (`after`, `before`), or undefined when absent; 400 if bad. */
function seqParam(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new DomainError("invalid", `${name} must be a sequence number`);
  }
  return Number(value);
}

/**
 * A page of the log, optionally of one bot (404 when it does not exist): oldest first, entries
 * after `after` (a seq, default 0); or with `order` "desc", newest first, entries before `before`
 * (default: from the newest), with `next_before` for the next, older page.
 */
export async function readLog(
  rc: RegistryContext,
  opts: { after?: string; before?: string; order?: string; limit?: string; botId?: string },
): Promise<{ entries: LogEntryT[]; next_after: number | null; next_before?: number | null }> {
  if (opts.botId !== undefined && !(await findBot(rc.store, opts.botId))) {
    throw new DomainError("not_found", `bot ${opts.botId} not found`);
  }
  const order = opts.order || "asc";
  if (order !== "asc" && order !== "desc") {
    throw new DomainError("invalid", 'order must be "asc" or "desc"');
  }
  const after = seqParam("after", opts.after) ?? 0;
  const before = seqParam("before", opts.before);
  const limit = parseLimit(opts.limit, LOG_DEFAULT_LIMIT, LOG_MAX_LIMIT);
  if (order === "desc") {
    if (opts.after) throw new DomainError("invalid", "after is for order=asc; use before");
    const rows = await rc.store.log.readNewest({
      before: before ?? null,
      limit: limit + 1,
      botId: opts.botId,
    });
    const entries = rows.slice(0, limit).map((r) => JSON.parse(r) as LogEntryT);
    return {
      entries,
      next_after: null,
      next_before: rows.length > limit ? entries[entries.length - 1].seq : null,
    };
  }
  if (before !== undefined) throw new DomainError("invalid", "before is for order=desc");
  const rows = await rc.store.log.read({ after, limit: limit + 1, botId: opts.botId });
  const entries = rows.slice(0, limit).map((r) => JSON.parse(r) as LogEntryT);
  return {
    entries,
    next_after: rows.length > limit ? entries[entries.length - 1].seq : null,
  };
}
