/** PostgreSQL token buckets (see ../rate_buckets.ts). */
import type { RateBucketStore } from "../rate_buckets.ts";
import { changes, rows, type Sql } from "./sql.ts";

// $1 id, $2 burst, $3 per minute, $4 now (ms). A new bucket starts full and gives a token; an
// existing one is refilled for the time since its last take (never backwards: instances' clocks
// may differ by a little), then gives a token when it holds one. `full_ms`: when it is full again.
const TAKE = `
INSERT INTO rate_buckets AS b (id, tokens, granted, updated_ms, full_ms)
VALUES ($1, $2::float8 - 1, TRUE, $4::bigint, $4::bigint + ceil(60000 / $3::float8)::bigint)
ON CONFLICT (id) DO UPDATE SET (tokens, granted, updated_ms, full_ms) = (
  SELECT t, g, u, u + ceil(($2::float8 - t) * 60000 / $3::float8)::bigint FROM (
    SELECT CASE WHEN r >= 1 THEN r - 1 ELSE r END AS t, r >= 1 AS g, u FROM (
      SELECT LEAST($2::float8, b.tokens + GREATEST(0, $4::bigint - b.updated_ms) * $3::float8 / 60000)
               AS r,
             GREATEST(b.updated_ms, $4::bigint) AS u
    ) refilled
  ) taken
)
RETURNING tokens, granted`;

/** The buckets store over `sql`. */
export function pgRateBuckets(sql: Sql): RateBucketStore {
  return {
    async take(id, burst, perMinute, nowMs) {
      const [row] = await rows<{ tokens: number; granted: boolean }>(sql, TAKE, [
        id,
        burst,
        perMinute,
        nowMs,
      ]);
      return { granted: row.granted, tokens: Number(row.tokens) };
    },
    prune: (nowMs) => changes(sql, "DELETE FROM rate_buckets WHERE full_ms <= $1", [nowMs]),
  };
}
