/**
 * PostgreSQL migration 5 (no SQLite counterpart): each capability row carries its bot's status (in
 * the primary key's index too, INCLUDE) and search text, so a search with a capability and a broad
 * term, or none, walks that capability's rows in bot_id order and checks the term and status on
 * them, instead of walking every bot (docs/decisions/storage.md, "Search on PostgreSQL: a
 * capability's rows carry what its searches check"). The search text stays out of the index: a
 * B-tree entry holds at most 2,704 bytes, and a bot's search text can be longer. The store writes
 * a bot's capability rows from its bot row (db/postgres/registry_bots.ts), after every change of
 * it. The index by bot_id (a bot's rows, to rewrite them) becomes a hash index: it serves those
 * look-ups and cannot be walked in bot_id order, so the planner never walks every bot's capability
 * rows instead of the one capability's.
 */
export const CAPABILITY_WALK = `
ALTER TABLE registry_capabilities ADD COLUMN status TEXT COLLATE "C", ADD COLUMN search_text TEXT;
UPDATE registry_capabilities c SET status = b.status, search_text = b.search_text
  FROM registry_bots b WHERE b.bot_id = c.bot_id;
ALTER TABLE registry_capabilities ALTER COLUMN status SET NOT NULL,
  ALTER COLUMN search_text SET NOT NULL;
ALTER TABLE registry_capabilities DROP CONSTRAINT registry_capabilities_pkey,
  ADD PRIMARY KEY (capability, bot_id) INCLUDE (status);
DROP INDEX registry_capabilities_bot;
CREATE INDEX registry_capabilities_bot ON registry_capabilities USING hash (bot_id);
`;
