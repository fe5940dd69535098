/** Reverse controller links: the bots that name a bot among their controllers. */
import { DomainError } from "../../protocol/errors.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import { findBot } from "./bots.ts";
import type { RegistryContext } from "./context.ts";
import { decodeCursor, encodeCursor, parseLimit } from "./search.ts";

/** Default and largest page. */
export const CONTROLLED_DEFAULT_LIMIT = 20;
/** Largest page. */
export const CONTROLLED_MAX_LIMIT = 100;

/** One bot a bot controls, as listed. */
export interface ControlledBot {
  bot_id: string;
  name?: string;
  status: string;
  /** The label the controlled bot gives its controller. */
  label?: string;
}

/**
 * A page of the bots `botId` controls (ordered by bot_id; `cursor` from the previous page's
 * `next_cursor`); 404 when `botId` does not exist, 400 for a bad cursor or limit.
 */
export async function controlledBots(
  rc: RegistryContext,
  botId: string,
  opts: { cursor?: string; limit?: string },
): Promise<{ bots: ControlledBot[]; next_cursor: string | null }> {
  const limit = parseLimit(opts.limit, CONTROLLED_DEFAULT_LIMIT, CONTROLLED_MAX_LIMIT);
  const after = opts.cursor ? decodeCursor(opts.cursor) : null;
  if (!(await findBot(rc.store, botId))) {
    throw new DomainError("not_found", `bot ${botId} not found`);
  }
  const rows = await rc.store.bots.controlled(botId, after, limit + 1);
  const page = rows.slice(0, limit);
  return {
    bots: page.map((r) => {
      const bot = JSON.parse(r.record) as Bot;
      const label = bot.controllers?.find((c) => c.bot_id === botId)?.label;
      return {
        bot_id: bot.bot_id,
        ...(bot.name ? { name: bot.name } : {}),
        status: bot.status ?? "active",
        ...(label ? { label } : {}),
      };
    }),
    next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1].botId) : null,
  };
}
