/**
 * One signup limit for both transports: invite codes tried in the interactive SSH signup count
 * against the same per-address bucket (`signup_ip`) as `POST /api/signup`.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { makeKey, mintInvite, type TestKey } from "../../../testing/accounts.ts";
import { requestFrom } from "../../helpers/raw_http.ts";
import { serverTest } from "../../helpers/server.ts";
import { ssh } from "../../helpers/ssh.ts";

serverTest("signup limit: SSH signup and HTTP signup share one bucket per address", {
  env: { SERVICE_RATE_LIMITS: "on", SERVICE_RATE_LIMIT_SIGNUP_IP: "3/1" },
}, async (server, t) => {
  // 3 at once, one more a minute: no refill within the test's few seconds.
  const sshFrom = (from: string, key: TestKey, answers: string[]) =>
    ssh(server.sshPort, key, undefined, {
      stdin: answers.join("\n") + "\n",
      extra: ["-b", from],
    });
  const httpSignup = async (from: string, username: string, code: string) => {
    const key = await makeKey(username);
    return (await requestFrom(from, server.httpPort, "POST", "/api/signup", {
      username,
      public_key: key.publicLine,
      invite_code: code,
    })).status;
  };
  await t.step("over SSH, the fourth invite guess from one address is refused", async () => {
    const wrong = Array.from({ length: 6 }, (_, i) => `inv_wrong${i}`);
    const r = await sshFrom("127.0.0.1", await makeKey("guesser"), ["guesser", ...wrong]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertEquals(r.stdout.split("invite code not found").length - 1, 3, r.stdout);
    assertStringIncludes(r.stdout, "too many requests; retry in");
    assertStringIncludes(r.stdout, "no account was created");
    assertEquals(r.stdout.split("Invite code: ").length - 1, 4, "asked four times, no more");
  });

  const code = await mintInvite(server);
  await t.step("then HTTP signup from that address is limited too", async () => {
    assertEquals(await httpSignup("127.0.0.1", "viahttp", code), 429);
  });

  await t.step("a valid invite over SSH from that address is refused, not used", async () => {
    const r = await sshFrom("127.0.0.1", await makeKey("valid"), ["valid", code]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertStringIncludes(r.stdout, "too many requests; retry in");
    assert(!r.stdout.includes("Welcome, valid!"), r.stdout);
  });

  await t.step("HTTP guesses count against SSH signup from the same address", async () => {
    for (let i = 0; i < 3; i++) {
      assertEquals(await httpSignup("127.0.0.3", `guess${i}`, `inv_wrong${i}`), 400);
    }
    const r = await sshFrom("127.0.0.3", await makeKey("late"), ["late", code]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertStringIncludes(r.stdout, "too many requests; retry in");
  });

  await t.step("another address signs up over SSH with the unused invite", async () => {
    const r = await sshFrom("127.0.0.2", await makeKey("other"), ["other", code]);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertStringIncludes(r.stdout, "Welcome, other!");
  });
});
