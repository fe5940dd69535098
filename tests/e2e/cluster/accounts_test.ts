/**
 * Accounts on two instances sharing one database: a login challenge issued by one instance is
 * verified by the other (once), tokens work on every instance and through the balancer, and one
 * invite raced over both instances makes exactly one account.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { answeredBy, balancedTest, loginAcross, signUpAt, via } from "../../helpers/cluster.ts";
import {
  makeKey,
  mintInvite,
  postJson,
  sshSign,
  type TestUser,
} from "../../../testing/accounts.ts";

balancedTest("accounts: one login spans instances; one invite makes one account", {}, async (
  cluster,
  t,
) => {
  const [a, b] = cluster.instances;
  let user: TestUser | undefined;
  let token = "";

  await t.step(
    "the balancer sends requests to both instances in turn; each says which",
    async () => {
      const seen = new Set<string | undefined>();
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${cluster.httpUrl}/api/health`);
        assertEquals(res.status, 200);
        const by = answeredBy(cluster, res);
        assertEquals((await res.json()).instance, by);
        seen.add(by);
        const registry = await fetch(`${cluster.registryUrl}/health`);
        await registry.body?.cancel();
        assertEquals(registry.headers.get("Signet-Instance"), answeredBy(cluster, registry));
      }
      assertEquals([...seen].sort(), ["a", "b"]);
    },
  );

  await t.step("signed up at A; a challenge from A verifies at B, once", async () => {
    user = await signUpAt(cluster, a.httpUrl, "alice", await makeKey("alice"));
    const challenge = await postJson(`${a.httpUrl}/api/login/challenge`, { username: "alice" });
    assertEquals(challenge.status, 200);
    const nonce = challenge.body.nonce as string;
    const verify = {
      username: "alice",
      nonce,
      signature: await sshSign(user!.key, nonce),
    };
    const atB = await postJson(`${b.httpUrl}/api/login/verify`, verify);
    assertEquals(atB.status, 200, JSON.stringify(atB.body));
    token = atB.body.token as string;
    // The challenge is spent everywhere: replayed at A, at B and through the balancer.
    for (const url of [a.httpUrl, b.httpUrl, cluster.httpUrl]) {
      const replay = await postJson(`${url}/api/login/verify`, verify);
      assertEquals(replay.status, 401, `${url}: ${JSON.stringify(replay.body)}`);
      assertEquals(typeof replay.body.error, "string");
    }
  });

  await t.step("the token works on A, on B and through the balancer", async () => {
    for (const url of [a.httpUrl, b.httpUrl, cluster.httpUrl, cluster.httpUrl]) {
      const res = await fetch(`${url}/api/user`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      assertEquals(res.status, 200, url);
      assertEquals((await res.json()).user.username, "alice");
    }
  });

  await t.step("a token from the other direction (B issues, A verifies) works too", async () => {
    const other = await loginAcross(b.httpUrl, a.httpUrl, user!);
    assertEquals(other.status, 200, JSON.stringify(other.body));
    assert(other.token && other.token !== token, "a new token");
  });

  await t.step(
    "20 concurrent signups with one invite over both instances: one account",
    async () => {
      const invite = await mintInvite(via(cluster, b));
      const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => makeKey(`racer${i}`)));
      const results = await Promise.all(
        keys.map((key, i) =>
          postJson(`${(i % 2 ? b : a).httpUrl}/api/signup`, {
            username: `racer${i}`,
            public_key: key.publicLine,
            invite_code: invite,
          })
        ),
      );
      const statuses = results.map((r) => r.status);
      assertEquals(statuses.filter((s) => s === 201).length, 1, `statuses: ${statuses}`);
      assertEquals(statuses.filter((s) => s !== 201), Array(19).fill(409), `statuses: ${statuses}`);
      for (const r of results.filter((r) => r.status !== 201)) {
        assertEquals(r.body.error, "invite code has already been used");
      }
      const users = await fetch(`${cluster.httpUrl}/api/admin/users`, {
        headers: { Authorization: `Bearer ${cluster.adminKey}` },
      });
      const racers = ((await users.json()).users as { username: string }[])
        .filter((u) => u.username.startsWith("racer"));
      assertEquals(racers.length, 1);
      const winner = results.findIndex((r) => r.status === 201);
      assertEquals(racers[0].username, `racer${winner}`);
    },
  );
});
