/**
 * Nobody can lock a user out of logging in: the per-user login limit counts per (username,
 * client address), so challenges asked in bob's name from another address leave bob's own
 * login alone, while each address stays limited.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { createUser, postJson, sshSign } from "../../../testing/accounts.ts";
import { requestFrom } from "../../helpers/raw_http.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest("login: challenges for bob from another address do not stop bob's login", {
  env: { SERVICE_RATE_LIMITS: "on" },
}, async (server, t) => {
  const bob = await createUser(server, "bob");
  const challengeFrom = (from: string, username: unknown) =>
    requestFrom(from, server.httpPort, "POST", "/api/login/challenge", { username });

  await t.step("12 challenges for bob from 127.0.0.2: the last two get 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await challengeFrom("127.0.0.2", "bob")).status);
    }
    assertEquals(statuses, [...Array(10).fill(200), 429, 429]);
  });

  await t.step("bob logs in from 127.0.0.1 all the same", async () => {
    const ch = await postJson(`${server.httpUrl}/api/login/challenge`, { username: "bob" });
    assertEquals(ch.status, 200, JSON.stringify(ch.body));
    const nonce = ch.body.nonce as string;
    const verify = await postJson(`${server.httpUrl}/api/login/verify`, {
      username: "bob",
      nonce,
      signature: await sshSign(bob.key, nonce),
    });
    assertEquals(verify.status, 200, JSON.stringify(verify.body));
    const me = await fetch(`${server.httpUrl}/api/user`, {
      headers: { Authorization: `Bearer ${verify.body.token}` },
    });
    assertEquals((await me.json()).user.username, "bob");
  });

  await t.step("verifies in bob's name from 127.0.0.2 are limited there too", async () => {
    const r = await requestFrom("127.0.0.2", server.httpPort, "POST", "/api/login/verify", {
      username: "bob",
      nonce: "a".repeat(64),
      signature: "x",
    });
    assertEquals(r.status, 429);
  });

  await t.step("another address starts with a full bucket for bob", async () => {
    assertEquals((await challengeFrom("127.0.0.3", "bob")).status, 200);
  });

  await t.step("a username that is not a string is a 400, not a 500", async () => {
    for (const path of ["/api/login/challenge", "/api/login/verify"]) {
      for (const username of [{ toString: 1 }, { valueOf: 1, toString: 1 }, ["bob"], 7]) {
        const r = await postJson(`${server.httpUrl}${path}`, { username });
        assertEquals(r.status, 400, `${path} ${JSON.stringify(username)}`);
        assertEquals(typeof r.body.error, "string");
      }
    }
  });
});
