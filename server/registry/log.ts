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

/** Entries after `after` (a seq, default 0), optionally of one bot (404 when it does not exist). */
export async function readLog(
  rc: RegistryContext,
  opts: { after?: string; limit?: string; botId?: string },
): Promise<{ entries: LogEntryT[]; next_after: number | null }> {
  if (opts.botId !== undefined && !(await findBot(rc.store, opts.botId))) {
    throw new DomainError("not_found", `bot ${opts.botId} not found`);
  }
  let after = 0;
  if (opts.after !== undefined && opts.after !== "") {
    if (!/^\d{1,15}$/.test(opts.after)) {
      throw new DomainError("invalid", "after must be a sequence number");
    }
    after = Number(opts.after);
  }
  const limit = parseLimit(opts.limit, LOG_DEFAULT_LIMIT, LOG_MAX_LIMIT);
  const rows = await rc.store.log.read({ after, limit: limit + 1, botId: opts.botId });
  const entries = rows.slice(0, limit).map((r) => JSON.parse(r) as LogEntryT);
  return {
    entries,
    next_after: rows.length > limit ? entries[entries.length - 1].seq : null,
  };
}
