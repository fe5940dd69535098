/** Rate limits: token buckets, and 429 with Retry-After on the real server. */
import { assert, assertEquals, assertThrows } from "../../helpers/assert.ts";
import { postJson } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { RateLimiter, RateLimitError } from "../../../server/ratelimit.ts";

Deno.test("token bucket: burst, refill, independent keys, off switch", () => {
  const rules = { login_ip: { burst: 2, perMinute: 60 } } as ConstructorParameters<
    typeof RateLimiter
  >[1];
  const l = new RateLimiter(true, rules);
  l.take("login_ip", "a", 0);
  l.take("login_ip", "a", 0);
  const err = assertThrows(() => l.take("login_ip", "a", 0), RateLimitError) as RateLimitError;
  assertEquals(err.retryAfterSeconds, 1);
  l.take("login_ip", "b", 0); // another key has its own bucket
  l.take("login_ip", "a", 1000); // one token back after a second
  const off = new RateLimiter(false, rules);
  for (let i = 0; i < 100; i++) off.take("login_ip", "a", 0);
});

serverTest("login challenges per user are limited with 429 and Retry-After", {
  env: { SERVICE_RATE_LIMITS: "on", SERVICE_RATE_LIMIT_LOGIN_USER: "3/1" },
}, async (server) => {
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 5; i++) {
    const r = await postJson(`${server.httpUrl}/api/login/challenge`, { username: "victim" });
    statuses.push(r.status);
    if (r.status === 429) {
      retryAfter = r.headers.get("Retry-After");
      assertEquals(typeof r.body.error, "string");
    }
  }
  assertEquals(statuses, [200, 200, 200, 429, 429]);
  assert(retryAfter !== null && Number(retryAfter) >= 1);
  // Another user is not affected.
  assertEquals(
    (await postJson(`${server.httpUrl}/api/login/challenge`, { username: "other" })).status,
    200,
  );
});
