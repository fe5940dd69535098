/**
 * The orders of `GET /v1/search` (its `sort` parameter): what the registry sorts by (the stores,
 * db/registry_bots.ts) and what the registry browser offers.
 */

/**
 * By bot_id (the default), or by a sort key with bot_id breaking ties, ascending, or descending
 * with a leading `-`. `name` is the record's name (the bot id for a bot without one) with ASCII
 * letters lower-cased; `created` and `updated` are the record's timestamps. Keys compare in byte
 * order.
 */
export const BOT_SORTS = [
  "bot_id",
  "name",
  "-name",
  "created",
  "-created",
  "updated",
  "-updated",
] as const;

/** One of BOT_SORTS. */
export type BotSort = typeof BOT_SORTS[number];
