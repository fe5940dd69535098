/**
 * The ordered PostgreSQL migrations; a migration's number is its position (1-based), recorded in
 * the one-row `schema_version` table. Never edit a shipped one.
 */
import { SCHEMA } from "./001_schema.ts";
import { RATE_BUCKETS } from "./002_rate_buckets.ts";
import { LISTS_SIZES_EXPIRY } from "./003_lists_sizes_expiry.ts";
import { SEARCH_SORTS } from "./004_search_sorts.ts";
import { CAPABILITY_WALK } from "./005_capability_walk.ts";

/** SQL scripts applied in order by db/postgres/migrate.ts. */
export const MIGRATIONS: readonly string[] = [
  SCHEMA,
  RATE_BUCKETS,
  LISTS_SIZES_EXPIRY,
  SEARCH_SORTS,
  CAPABILITY_WALK,
];
