/**
 * Migration 4: tokens get a public id (to list and revoke them), an expiry and a last-use time.
 * The table is rebuilt because SQLite cannot add a primary key; the SHA-256 stays the only form
 * of the secret. Tokens issued before the upgrade expire 90 days after it (not after their
 * creation), so upgrading logs nobody out.
 */
export const TOKEN_LIFECYCLE_SCHEMA = `
CREATE TABLE tokens_v4 (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  token_hash    TEXT NOT NULL UNIQUE,
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at    TEXT NOT NULL,
  expires_at    TEXT NOT NULL,
  last_used_at  TEXT
);
INSERT INTO tokens_v4 (token_hash, user_id, created_at, expires_at)
  SELECT token_hash, user_id, created_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+90 days')
  FROM tokens ORDER BY rowid;
DROP TABLE tokens;
ALTER TABLE tokens_v4 RENAME TO tokens;
CREATE INDEX tokens_user ON tokens(user_id);
`;
