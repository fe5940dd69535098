/** Rate limits: 429 with Retry-After on the real server (the buckets: server/ratelimit_test.ts). */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { postJson } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";

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
