/**
 * On PostgreSQL the rate limits count every instance's requests together: requests split over two
 * instances on one database run out of one bucket.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { clusterTest } from "../../helpers/cluster.ts";
import { postJson } from "../../../testing/accounts.ts";

clusterTest(
  "two instances on one database share the rate limits",
  {
    names: ["a", "b"],
    env: {
      SERVICE_RATE_LIMITS: "on",
      SERVICE_RATE_LIMIT_LOGIN_USER: "3/1",
      SERVICE_RATE_LIMIT_NONCE_IP: "4/1",
    },
  },
  async (cluster, t) => {
    const [a, b] = cluster.instances;
    await t.step("login challenges for one user, alternating instances", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const server = i % 2 === 0 ? a : b;
        const r = await postJson(`${server.httpUrl}/api/login/challenge`, { username: "victim" });
        statuses.push(r.status);
        if (r.status === 429) assertEquals(Number(r.headers.get("Retry-After")) >= 1, true);
      }
      assertEquals(statuses, [200, 200, 200, 429, 429, 429]);
    });

    await t.step("registry nonces, at once on both instances", async () => {
      const statuses = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const res = await fetch(`${(i % 2 === 0 ? a : b).registryUrl}/v1/nonce`);
          await res.body?.cancel();
          return res.status;
        }),
      );
      assertEquals(statuses.filter((s) => s === 200).length, 4, statuses.join(" "));
      assertEquals(statuses.filter((s) => s === 429).length, 6, statuses.join(" "));
    });
  },
);
