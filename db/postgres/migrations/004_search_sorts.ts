/**
 * PostgreSQL migration 4 (SQLite's 7): search sorts by name, creation and last change (issue 27).
 * The name's sort key is a stored generated column, so every write keeps it (and the rows from
 * before have it at once): the record's name, or the bot id for a bot without one, with ASCII
 * letters lower-cased (`lower` under the "C" collation, the same as SQLite's). Every key is
 * compared in byte order ("C"), as on SQLite. Each sort walks its own index of (key, bot_id),
 * bot_id breaking ties, forwards or backwards.
 */
export const SEARCH_SORTS = `
ALTER TABLE registry_bots ADD COLUMN name_key TEXT COLLATE "C" NOT NULL
  GENERATED ALWAYS AS (
    lower(coalesce(nullif(record::jsonb ->> 'name', ''), bot_id) COLLATE "C")
  ) STORED;
CREATE INDEX registry_bots_name ON registry_bots(name_key, bot_id);
CREATE INDEX registry_bots_created ON registry_bots((created_at COLLATE "C"), bot_id);
CREATE INDEX registry_bots_updated ON registry_bots((updated_at COLLATE "C"), bot_id);
`;
