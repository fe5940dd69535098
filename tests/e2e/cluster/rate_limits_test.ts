/**
 * Rate limits count a client's requests on every instance together (the counters live in the
 * shared PostgreSQL database), and through the balancer the client is the address nginx saw, not
 * one it claims in its own X-Forwarded-For.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { answeredBy, balancedTest } from "../../helpers/cluster.ts";
import { postJson } from "../../../testing/accounts.ts";

balancedTest("rate limits: one budget over both instances", {
  env: {
    SERVICE_RATE_LIMITS: "on",
    SERVICE_RATE_LIMIT_LOGIN_USER: "4/1",
    SERVICE_RATE_LIMIT_NONCE_IP: "6/1",
  },
}, async (cluster, t) => {
  const [a, b] = cluster.instances;

  await t.step("login challenges for one user: 2 on A and 2 on B spend all 4", async () => {
    const challenge = async (url: string, username = "victim") =>
      (await postJson(`${url}/api/login/challenge`, { username })).status;
    const statuses = [
      await challenge(a.httpUrl),
      await challenge(b.httpUrl),
      await challenge(a.httpUrl),
      await challenge(b.httpUrl),
    ];
    assertEquals(statuses, [200, 200, 200, 200]);
    // Each instance has seen two: only a shared count refuses the fifth.
    assertEquals(await challenge(a.httpUrl), 429);
    assertEquals(await challenge(b.httpUrl), 429);
    assertEquals(await challenge(cluster.httpUrl), 429);
    assertEquals(await challenge(cluster.httpUrl), 429);
    // Another user's budget is untouched.
    assertEquals(await challenge(a.httpUrl, "bystander"), 200);
  });

  await t.step("registry nonces per address: counted together through the balancer", async () => {
    const nonce = async (url: string, forwardedFor?: string) => {
      const res = await fetch(`${url}/v1/nonce`, {
        headers: forwardedFor ? { "X-Forwarded-For": forwardedFor } : {},
      });
      await res.body?.cancel();
      return { status: res.status, by: answeredBy(cluster, res) };
    };
    const through = [];
    for (let i = 0; i < 4; i++) through.push(await nonce(cluster.registryUrl));
    assertEquals(through.map((r) => r.status), [200, 200, 200, 200]);
    assertEquals(new Set(through.map((r) => r.by)).size, 2, "both instances answered");
    assertEquals((await nonce(a.registryUrl)).status, 200);
    assertEquals((await nonce(b.registryUrl)).status, 200);
    // Six spent; a claimed address of its own does not give the client a fresh budget: nginx
    // replaces X-Forwarded-For with the address it saw.
    assertEquals((await nonce(cluster.registryUrl, "203.0.113.9")).status, 429);
    assertEquals((await nonce(cluster.registryUrl, "203.0.113.10")).status, 429);
    assertEquals((await nonce(a.registryUrl)).status, 429);
    assertEquals((await nonce(b.registryUrl)).status, 429);
  });
});
