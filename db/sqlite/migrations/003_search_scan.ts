/**
 * Migration 3: a narrow index over (bot_id, search_text). A broad search walks bots in bot_id order
 * testing `search_text LIKE …` until a page is full; on this index it reads ~100-byte entries
 * instead of whole rows (records included), and fetches a row only for a hit.
 */
export const SEARCH_SCAN_SCHEMA = `
CREATE INDEX registry_bots_search_scan ON registry_bots(bot_id, search_text);
`;
