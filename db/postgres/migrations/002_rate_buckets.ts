/**
 * PostgreSQL migration 2: the rate limits' token buckets, shared by every instance on the database
 * (db/rate_buckets.ts). UNLOGGED: a bucket is worth nothing after a crash (the limits start full
 * again, as after a restart of one instance), and skipping the WAL keeps a take to one cheap write.
 */
export const RATE_BUCKETS = `
CREATE UNLOGGED TABLE rate_buckets (
  id          TEXT COLLATE "C" PRIMARY KEY,
  tokens      DOUBLE PRECISION NOT NULL,
  granted     BOOLEAN NOT NULL,
  updated_ms  BIGINT NOT NULL,
  full_ms     BIGINT NOT NULL
);
CREATE INDEX rate_buckets_full ON rate_buckets(full_ms);
`;
