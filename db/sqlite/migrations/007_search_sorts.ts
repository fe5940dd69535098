/**
 * Migration 7: search sorts by name, creation and last change (issue 27). The name's sort key is
 * a generated column, so every write keeps it (and the rows from before have it at once): the
 * record's name, or the bot id for a bot without one, with ASCII letters lower-cased (SQLite's
 * `lower`, the same as PostgreSQL's under the "C" collation). Each sort walks its own index of
 * (key, bot_id), bot_id breaking ties, forwards or backwards.
 */
export const SEARCH_SORTS_SCHEMA = `
ALTER TABLE registry_bots ADD COLUMN name_key TEXT
  GENERATED ALWAYS AS (lower(coalesce(nullif(json_extract(record, '$.name'), ''), bot_id))) VIRTUAL;
CREATE INDEX registry_bots_name ON registry_bots(name_key, bot_id);
CREATE INDEX registry_bots_created ON registry_bots(created_at, bot_id);
CREATE INDEX registry_bots_updated ON registry_bots(updated_at, bot_id);
`;
