/**
 * Migration 6: a repository's size on disk is stored in its row (measured at create and after each
 * push) instead of walked per listing (issue 27). Rows from before stay NULL until first listed.
 * Invites get an expiry; those from before never expire (NULL). The listings by creation and by
 * last push walk an index (the expressions are the ones db/listings.ts orders by).
 */
export const LISTS_SIZES_EXPIRY_SCHEMA = `
ALTER TABLE repos ADD COLUMN size_bytes INTEGER;
ALTER TABLE invites ADD COLUMN expires_at TEXT;
CREATE INDEX repos_created ON repos(created_at, id);
CREATE INDEX repos_pushed ON repos(COALESCE(pushed_at, ''), id);
`;
