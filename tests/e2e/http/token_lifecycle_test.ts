/**
 * API tokens expire and can be listed and revoked (by their owner or the admin); a revoked or
 * expired token is a 401 on the API and on smart HTTP push. Secrets are never listed or stored.
 */
import { serverSql } from "../../../testing/database.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  createRepo,
  createUser,
  login,
  postJson,
  sshSign,
  type TestUser,
} from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { openDatabase } from "../../../db/sqlite/database.ts";
import { sha256Hex } from "../../../protocol/secrets.ts";
import { commitFile } from "../../helpers/git.ts";
import { databaseAt } from "../../helpers/old_database.ts";

const DAY_MS = 86_400_000;

serverTest(
  "tokens: expiry, listing, revocation by owner and admin, 401 once revoked or expired",
  {},
  async (server, t) => {
    const H = server.httpUrl;
    const home = await Deno.makeTempDir({ prefix: "signet-home-" });
    const env = gitEnv(home);
    const admin = { Authorization: `Bearer ${server.adminKey}` };
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    const api = async (method: string, path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${H}${path}`, { method, headers });
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) };
    };
    /** A full login with an optional `expires_in_days`; the verify answer. */
    const loginWith = async (user: TestUser, extra: Record<string, unknown>) => {
      const ch = await postJson(`${H}/api/login/challenge`, { username: user.username });
      const nonce = ch.body.nonce as string;
      return await postJson(`${H}/api/login/verify`, {
        username: user.username,
        nonce,
        signature: await sshSign(user.key, nonce),
        ...extra,
      });
    };
    /** Whether `token` may start a push to alice/proj over smart HTTP (Basic, as git sends it). */
    const pushAdvert = async (token: string) =>
      (await fetch(`${H}/alice/proj.git/info/refs?service=git-receive-pack`, {
        headers: { Authorization: `Basic ${btoa(`alice:${token}`)}` },
      }).then(async (r) => (await r.body?.cancel(), r))).status;
    const work = `${home}/work`;
    let commits = 0;
    /** Commits and pushes with `token` in the URL, as a git user would; the exit code. */
    const gitPush = async (token: string) => {
      await commitFile(work, env, "f.txt", `${++commits}`, `c${commits}`);
      const url = `${H}/alice/proj.git`.replace("http://", `http://alice:${token}@`);
      return await run("git", ["push", url, "HEAD:main"], { cwd: work, env });
    };

    const alice = await createUser(server, "alice");
    const bob = await createUser(server, "bob");
    const aliceToken = await login(server, alice);
    await createRepo(server, aliceToken, "proj");
    await runOk("git", ["init", "-q", "-b", "main", work], { env });

    await t.step("a login's token expires in 90 days unless it asks for 1 to 365", async () => {
      const before = Date.now();
      const plain = await loginWith(alice, {});
      assertEquals(plain.status, 200);
      const expires = Date.parse(plain.body.expires_at as string);
      assert(Math.abs(expires - (before + 90 * DAY_MS)) < 60_000, String(plain.body.expires_at));
      const week = await loginWith(alice, { expires_in_days: 7 });
      assertEquals(week.status, 200);
      const weekExpires = Date.parse(week.body.expires_at as string);
      assert(Math.abs(weekExpires - (before + 7 * DAY_MS)) < 60_000);
      for (const bad of [0, 366, "7", 1.5, -1, true, {}, 1e308]) {
        const r = await loginWith(alice, { expires_in_days: bad });
        assertEquals(r.status, 400, `expires_in_days ${JSON.stringify(bad)}`);
        assertStringIncludes(r.body.error as string, "expires_in_days");
      }
    });

    await t.step("GET /api/tokens lists the caller's tokens, never a secret", async () => {
      const r = await api("GET", "/api/tokens", bearer(aliceToken));
      assertEquals(r.status, 200);
      const tokens = r.body.tokens as Record<string, unknown>[];
      assertEquals(tokens.length, 3);
      for (const tok of tokens) {
        assertEquals(Object.keys(tok).sort(), [
          "created_at",
          "current",
          "expires_at",
          "id",
          "last_used_at",
        ]);
      }
      assertEquals(tokens.filter((tok) => tok.current).length, 1);
      assert(typeof tokens.find((tok) => tok.current)!.last_used_at === "string");
      assert(!r.text.includes(aliceToken.slice(8)), "the secret is listed");
      assert(!r.text.includes(await sha256Hex(aliceToken)), "the hash is listed");
      const bobs = await api("GET", "/api/tokens", bearer(await login(server, bob)));
      assertEquals((bobs.body.tokens as unknown[]).length, 1, "bob sees only his own");
      assertEquals((await api("GET", "/api/tokens")).status, 401);
    });

    await t.step({
      name: "the database holds only hashes",
      fn: async () => {
        const db = await serverSql(server.dataDir);
        try {
          const dump = JSON.stringify(await db.query("SELECT * FROM tokens"));
          assert(dump.includes(await sha256Hex(aliceToken)), "the token's hash is stored");
          assert(!dump.includes(aliceToken.slice(8)), "a raw token is stored");
        } finally {
          await db.close();
        }
      },
    });

    await t.step("revoking one's own token: 401 on the API and on git push", async () => {
      const victim = (await loginWith(alice, {})).body.token as string;
      assertEquals(await pushAdvert(victim), 200);
      assertEquals((await gitPush(victim)).code, 0);
      const listed = (await api("GET", "/api/tokens", bearer(victim))).body.tokens as {
        id: number;
        current: boolean;
      }[];
      const id = listed.find((tok) => tok.current)!.id;
      const r = await api("DELETE", `/api/tokens/${id}`, bearer(aliceToken));
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body, { revoked: id });
      assertEquals((await api("GET", "/api/user", bearer(victim))).status, 401);
      assertEquals(await pushAdvert(victim), 401);
      const push = await gitPush(victim);
      assert(push.code !== 0, "a revoked token pushed");
      assertEquals((await api("DELETE", `/api/tokens/${id}`, bearer(aliceToken))).status, 404);
      assertEquals((await api("GET", "/api/user", bearer(aliceToken))).status, 200);
    });

    await t.step("someone else's token id is not found and keeps working", async () => {
      const bobToken = await login(server, bob);
      const bobId = ((await api("GET", "/api/tokens", bearer(bobToken))).body.tokens as {
        id: number;
        current: boolean;
      }[]).find((tok) => tok.current)!.id;
      const r = await api("DELETE", `/api/tokens/${bobId}`, bearer(aliceToken));
      assertEquals(r.status, 404);
      assertEquals((await api("GET", "/api/user", bearer(bobToken))).status, 200);
      for (const bad of ["abc", "0", "-1", "1e3", "01", "9".repeat(20), "1.0", "%ZZ"]) {
        const b = await api("DELETE", `/api/tokens/${bad}`, bearer(aliceToken));
        assertEquals(b.status, 400, `${bad}: ${b.text}`);
      }
    });

    await t.step("the admin lists a user's tokens and revokes any", async () => {
      const target = (await loginWith(alice, {})).body.token as string;
      const r = await api("GET", "/api/admin/users/alice/tokens", admin);
      assertEquals(r.status, 200);
      const tokens = r.body.tokens as { id: number }[];
      assert(!r.text.includes(target.slice(8)));
      const newest = tokens[tokens.length - 1].id;
      assertEquals((await api("DELETE", `/api/admin/tokens/${newest}`)).status, 401);
      assertEquals((await api("GET", "/api/admin/users/alice/tokens")).status, 401);
      const del = await api("DELETE", `/api/admin/tokens/${newest}`, admin);
      assertEquals(del.body, { revoked: newest });
      assertEquals((await api("GET", "/api/user", bearer(target))).status, 401);
      assertEquals(await pushAdvert(target), 401);
      assertEquals((await api("DELETE", `/api/admin/tokens/${newest}`, admin)).status, 404);
      assertEquals((await api("GET", "/api/admin/users/nobody/tokens", admin)).status, 404);
      assertEquals((await api("GET", "/api/admin/users/Bad%20Name/tokens", admin)).status, 400);
      assertEquals((await api("DELETE", "/api/admin/tokens/x", admin)).status, 400);
    });

    await t.step({
      name: "an expired token is a 401 on the API and on git push",
      fn: async () => {
        const soon = (await loginWith(alice, { expires_in_days: 1 })).body.token as string;
        assertEquals((await gitPush(soon)).code, 0);
        const db = await serverSql(server.dataDir);
        try {
          await db.query(
            "UPDATE tokens SET expires_at = ? WHERE token_hash = ?",
            new Date(Date.now() - 1000).toISOString(),
            await sha256Hex(soon),
          );
        } finally {
          await db.close();
        }
        const me = await api("GET", "/api/user", bearer(soon));
        assertEquals(me.status, 401);
        assertStringIncludes(me.body.error, "expired");
        assertEquals(await pushAdvert(soon), 401);
        assert((await gitPush(soon)).code !== 0, "an expired token pushed");
        const listed = (await api("GET", "/api/tokens", bearer(aliceToken))).text;
        const all = (await api("GET", "/api/admin/users/alice/tokens", admin)).body.tokens as {
          expires_at: string;
        }[];
        assert(all.every((tok) => Date.parse(tok.expires_at) > Date.now()), listed);
      },
    });
  },
);

Deno.test("migration 4 keeps existing tokens, with an id and 90 days from the upgrade", async () => {
  const { path, old } = await databaseAt(3);
  old.exec(
    "INSERT INTO users (username, public_key, created_at) VALUES ('old', 'ssh-ed25519 AAAA', 'x')",
  );
  const hash = await sha256Hex(`SERVICE_${"1".repeat(64)}`);
  old.prepare("INSERT INTO tokens (token_hash, user_id, created_at) VALUES (?, 1, ?)")
    .run(hash, "2020-01-01T00:00:00.000Z");
  old.close();
  const db = openDatabase(path);
  try {
    const row = db.prepare("SELECT * FROM tokens").get() as Record<string, unknown>;
    assertEquals(row.id, 1);
    assertEquals(row.token_hash, hash);
    assertEquals(row.created_at, "2020-01-01T00:00:00.000Z");
    assertEquals(row.last_used_at, null);
    const expires = Date.parse(row.expires_at as string);
    assert(Math.abs(expires - (Date.now() + 90 * DAY_MS)) < 60_000, String(row.expires_at));
    assertEquals(new Date(expires).toISOString(), row.expires_at, "stored as toISOString");
  } finally {
    db.close();
  }
});
