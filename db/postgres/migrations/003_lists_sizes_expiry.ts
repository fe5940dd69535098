/**
 * PostgreSQL migration 3 (SQLite's 6): a repository's size on disk is stored in its row, measured
 * at create and after each push; rows from before stay NULL until first listed. Invites get an
 * expiry; those from before never expire (NULL). The listings by creation and by last push walk
 * an index (the expressions are the ones db/listings.ts orders by).
 */
export const LISTS_SIZES_EXPIRY = `
ALTER TABLE repos ADD COLUMN size_bytes BIGINT;
ALTER TABLE invites ADD COLUMN expires_at TEXT COLLATE "C";
CREATE INDEX repos_created ON repos ((created_at COLLATE "C"), id);
CREATE INDEX repos_pushed ON repos ((COALESCE(pushed_at, '') COLLATE "C"), id);
`;
