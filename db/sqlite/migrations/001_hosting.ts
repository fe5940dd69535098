/** Migration 1: accounts, invites, tokens, login challenges and repositories. */
export const HOSTING_SCHEMA = `
CREATE TABLE users (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  username    TEXT NOT NULL UNIQUE,
  public_key  TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL
);

CREATE TABLE invites (
  code        TEXT PRIMARY KEY,
  created_by  INTEGER REFERENCES users(id) ON DELETE SET NULL,
  used_by     INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at  TEXT NOT NULL,
  used_at     TEXT
);

CREATE TABLE tokens (
  token_hash  TEXT PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE challenges (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  username    TEXT NOT NULL,
  nonce       TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL,
  created_ms  INTEGER NOT NULL
);
CREATE INDEX challenges_user ON challenges(username);

CREATE TABLE repos (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  pushed_at   TEXT,
  UNIQUE (owner_id, name)
);
`;
