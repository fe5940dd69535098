/** Migration 2: the bot identity registry (bots, keys, search index, attestations, audit log, nonces). */
export const REGISTRY_SCHEMA = `
CREATE TABLE registry_bots (
  rid          INTEGER PRIMARY KEY,
  bot_id       TEXT NOT NULL UNIQUE,
  status       TEXT NOT NULL,
  search_text  TEXT NOT NULL,
  record       TEXT NOT NULL,
  version      INTEGER NOT NULL,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE INDEX registry_bots_status ON registry_bots(status, bot_id);

-- Substring search over id, name and description (lower-cased in search_text): an FTS5 trigram
-- index over registry_bots, kept in step by triggers.
CREATE VIRTUAL TABLE registry_search USING fts5(
  search_text, content = 'registry_bots', content_rowid = 'rid', tokenize = 'trigram'
);
CREATE TRIGGER registry_bots_ai AFTER INSERT ON registry_bots BEGIN
  INSERT INTO registry_search (rowid, search_text) VALUES (new.rid, new.search_text);
END;
CREATE TRIGGER registry_bots_ad AFTER DELETE ON registry_bots BEGIN
  INSERT INTO registry_search (registry_search, rowid, search_text)
    VALUES ('delete', old.rid, old.search_text);
END;
CREATE TRIGGER registry_bots_au AFTER UPDATE OF search_text ON registry_bots BEGIN
  INSERT INTO registry_search (registry_search, rowid, search_text)
    VALUES ('delete', old.rid, old.search_text);
  INSERT INTO registry_search (rowid, search_text) VALUES (new.rid, new.search_text);
END;

CREATE TABLE registry_keys (
  bot_id      TEXT NOT NULL REFERENCES registry_bots(bot_id),
  key_id      TEXT NOT NULL,
  public_key  TEXT NOT NULL,
  status      TEXT NOT NULL,
  PRIMARY KEY (bot_id, key_id)
) WITHOUT ROWID;
CREATE INDEX registry_keys_public_key ON registry_keys(public_key);
CREATE INDEX registry_keys_status ON registry_keys(status);

CREATE TABLE registry_capabilities (
  capability  TEXT NOT NULL,
  bot_id      TEXT NOT NULL REFERENCES registry_bots(bot_id),
  PRIMARY KEY (capability, bot_id)
) WITHOUT ROWID;
CREATE INDEX registry_capabilities_bot ON registry_capabilities(bot_id);

CREATE TABLE registry_controllers (
  bot_id         TEXT NOT NULL REFERENCES registry_bots(bot_id),
  controller_id  TEXT NOT NULL,
  PRIMARY KEY (bot_id, controller_id)
) WITHOUT ROWID;
CREATE INDEX registry_controllers_controller ON registry_controllers(controller_id);

CREATE TABLE registry_attestations (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  attestation_id  TEXT NOT NULL UNIQUE,
  issuer          TEXT NOT NULL,
  subject         TEXT NOT NULL,
  record          TEXT NOT NULL,
  published_at    TEXT NOT NULL
);
CREATE INDEX registry_attestations_subject ON registry_attestations(subject, seq);
CREATE INDEX registry_attestations_issuer ON registry_attestations(issuer, seq);

CREATE TABLE registry_log (
  seq         INTEGER PRIMARY KEY,
  bot_id      TEXT NOT NULL,
  operation   TEXT NOT NULL,
  entry       TEXT NOT NULL,
  hash        TEXT NOT NULL,
  created_ms  INTEGER NOT NULL
);
CREATE INDEX registry_log_bot ON registry_log(bot_id, seq);
CREATE INDEX registry_log_time ON registry_log(created_ms);

CREATE TABLE registry_used_nonces (
  nonce       TEXT PRIMARY KEY,
  expires_ms  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX registry_used_nonces_expiry ON registry_used_nonces(expires_ms);

CREATE TABLE registry_meta (
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO registry_meta (name, value) VALUES ('nonce_key', lower(hex(randomblob(32))));
`;
