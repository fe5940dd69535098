/**
 * The token buckets, the same cases in this process's memory (SQLite) and in PostgreSQL's
 * `rate_buckets` table, where two limiters over one database (two instances) count together.
 */
import { assertEquals, assertRejects } from "../tests/helpers/assert.ts";
import { openPostgresStore } from "../db/postgres/store.ts";
import postgres from "postgres";
import { startPostgres } from "../testing/postgres.ts";
import { RateLimiter, type RateLimiter as Limiter, RateLimitError } from "./ratelimit.ts";

const RULES = {
  login_ip: { burst: 2, perMinute: 60 },
  nonce_ip: { burst: 5, perMinute: 1 },
} as ConstructorParameters<typeof RateLimiter>[1];

async function refused(l: Limiter, key: string, now: number): Promise<number> {
  const err = await assertRejects(() => l.take("login_ip", key, now), RateLimitError);
  return (err as RateLimitError).retryAfterSeconds;
}

/**
 * Burst, refill, keys apart, Retry-After, the off switch, and the sweep of full buckets;
 * `kept` counts the buckets the backing still holds (null: it cannot tell).
 */
async function bucketCases(make: () => Limiter, kept: () => Promise<number | null>): Promise<void> {
  const l = make();
  await l.take("login_ip", "a", 0);
  await l.take("login_ip", "a", 0);
  assertEquals(await refused(l, "a", 0), 1);
  await l.take("login_ip", "b", 0); // another key has its own bucket
  await l.take("login_ip", "a", 1000); // one token back after a second
  assertEquals(await refused(l, "a", 1000), 1);
  // Keys that differ only past a separator, or hold U+0000, stay apart.
  await l.take("login_ip", "x\u0000y", 0);
  await l.take("login_ip", "x\u0000y", 0);
  await l.take("login_ip", "x", 0);
  await l.take("login_ip", "k".repeat(5000), 0);
  await l.take("login_ip", "k".repeat(5000), 0);
  await refused(l, "k".repeat(5000), 0);
  await l.take("login_ip", `${"k".repeat(4999)}j`, 0);
  // Retry-After: a slow rule's wait.
  for (let i = 0; i < 5; i++) await l.take("nonce_ip", "slow", 0);
  const err = await assertRejects(() => l.take("nonce_ip", "slow", 0), RateLimitError);
  assertEquals((err as RateLimitError).retryAfterSeconds, 60);
  // A minute later every login bucket is full again: the sweep forgets them, and a full
  // bucket behaves as before.
  await l.sweep(61_000);
  const left = await kept();
  if (left !== null) assertEquals(left, 1, "only the slow bucket is left");
  await l.take("login_ip", "a", 61_000);
  await l.take("login_ip", "a", 61_000);
  await refused(l, "a", 61_000);
  const off = new RateLimiter(false, RULES);
  for (let i = 0; i < 100; i++) await off.take("login_ip", "a", 0);
}

Deno.test("token buckets in memory: burst, refill, keys apart, Retry-After, sweep", async () => {
  await bucketCases(() => new RateLimiter(true, RULES), () => Promise.resolve(null));
});

Deno.test({
  name: "token buckets in PostgreSQL: the same cases, and two instances count together",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const pg = await startPostgres();
    const url = await pg.createDatabase();
    const one = await openPostgresStore(url);
    const two = await openPostgresStore(url);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const count = async () =>
      Number((await sql.unsafe("SELECT count(*)::int AS n FROM rate_buckets"))[0].n);
    try {
      await t.step("the same cases", async () => {
        await bucketCases(() => new RateLimiter(true, RULES, one.rateBuckets), count);
      });
      await t.step("two limiters on one database share each bucket", async () => {
        const a = new RateLimiter(true, RULES, one.rateBuckets);
        const b = new RateLimiter(true, RULES, two.rateBuckets);
        // 20 takes at once, split over both: exactly the burst (2) succeed.
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take("login_ip", "shared", 500_000)),
        );
        assertEquals(results.filter((r) => r.status === "fulfilled").length, 2);
        assertEquals(
          results.every((r) => r.status === "fulfilled" || r.reason instanceof RateLimitError),
          true,
        );
      });
    } finally {
      await one.close();
      await two.close();
      await sql.end();
      await pg.destroy();
    }
  },
});
