/**
 * PostgreSQL migration 3 (SQLite's 6): a repository's size on disk is stored in its row, measured
 * at create and after each push; rows from before stay NULL until first listed.
 */
export const REPO_SIZES = `
ALTER TABLE repos ADD COLUMN size_bytes BIGINT;
`;
