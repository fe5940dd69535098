/** End-to-end tests of the hosting API against the real server. */
import { ON_POSTGRES } from "../../../testing/postgres.ts";
import { serverSql } from "../../../testing/database.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  createRepo,
  createUser,
  login,
  makeKey,
  mintInvite,
  postJson,
  sshSign,
} from "../../../testing/accounts.ts";
import { firstAnswer } from "../../helpers/raw_http.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest("hosting API", {}, async (server, t) => {
  const api = (p: string) => `${server.httpUrl}/api${p}`;
  const admin = { Authorization: `Bearer ${server.adminKey}` };
  await t.step("invites need the admin key", async () => {
    assertEquals((await postJson(api("/admin/invites"), "")).status, 401);
    const wrong = await postJson(api("/admin/invites"), "", { Authorization: "Bearer nope" });
    assertEquals(wrong.status, 401);
    assertEquals(typeof wrong.body.error, "string");
    const ok = await postJson(api("/admin/invites"), "", admin);
    assertEquals(ok.status, 201);
    assert(/^inv_[0-9a-f]{32}$/.test(ok.body.code as string));
  });

  await t.step("signup rejects bad input and does not burn the invite", async () => {
    const key = await makeKey();
    const code = await mintInvite(server);
    const rsaDir = await Deno.makeTempDir();
    await new Deno.Command("ssh-keygen", {
      args: ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", `${rsaDir}/k`],
    }).output();
    const rsa = (await Deno.readTextFile(`${rsaDir}/k.pub`)).trim();
    const bad: [Record<string, unknown>, number, string][] = [
      [{ username: "A", public_key: key.publicLine, invite_code: code }, 400, "username"],
      [{ username: "-bob", public_key: key.publicLine, invite_code: code }, 400, "username"],
      [
        { username: "x".repeat(33), public_key: key.publicLine, invite_code: code },
        400,
        "username",
      ],
      [{ username: "bob", public_key: rsa, invite_code: code }, 400, "ssh-ed25519"],
      [
        { username: "bob", public_key: "ssh-ed25519 AAAAgarbage", invite_code: code },
        400,
        "public_key",
      ],
      [
        {
          username: "bob",
          public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==",
          invite_code: code,
        },
        400,
        "public_key",
      ],
      [{ username: "bob", public_key: key.publicLine, invite_code: "inv_nope" }, 400, "invite"],
      [{ username: "bob", public_key: key.publicLine }, 400, "invite_code"],
      [{ username: 5, public_key: key.publicLine, invite_code: code }, 400, "username"],
    ];
    for (const [body, status, word] of bad) {
      const r = await postJson(api("/signup"), body);
      assertEquals(r.status, status, JSON.stringify(body));
      assertStringIncludes(r.body.error as string, word);
    }
    assertEquals((await postJson(api("/signup"), "{not json")).status, 400);
    assertEquals((await postJson(api("/signup"), "[1]")).status, 400);
    // The invite survived every failure.
    const ok = await postJson(api("/signup"), {
      username: "bob",
      public_key: key.publicLine,
      invite_code: code,
    });
    assertEquals(ok.status, 201);
    assertEquals((ok.body.user as { username: string }).username, "bob");
    // Used invite, taken username, taken key.
    const again = await postJson(api("/signup"), {
      username: "bob2",
      public_key: (await makeKey()).publicLine,
      invite_code: code,
    });
    assertEquals(again.status, 409);
    const code2 = await mintInvite(server);
    assertEquals(
      (await postJson(api("/signup"), {
        username: "bob",
        public_key: (await makeKey()).publicLine,
        invite_code: code2,
      })).status,
      409,
    );
    assertEquals(
      (await postJson(api("/signup"), {
        username: "bob3",
        public_key: key.publicLine,
        invite_code: code2,
      })).status,
      409,
    );
  });

  await t.step("20 concurrent signups with one invite create exactly one account", async () => {
    const code = await mintInvite(server);
    const keys = await Promise.all(Array.from({ length: 20 }, () => makeKey()));
    const results = await Promise.all(
      keys.map((k, i) =>
        postJson(api("/signup"), {
          username: `racer${i}`,
          public_key: k.publicLine,
          invite_code: code,
        })
      ),
    );
    assertEquals(results.filter((r) => r.status === 201).length, 1);
    assertEquals(results.filter((r) => r.status === 409).length, 19);
  });

  const alice = await createUser(server, "alice");
  const mallory = await createUser(server, "mallory");

  await t.step("login: challenge, sign with ssh-keygen, verify", async () => {
    const ch = await postJson(api("/login/challenge"), { username: "alice" });
    assertEquals(ch.status, 200);
    const nonce = ch.body.nonce as string;
    assert(/^[0-9a-f]{64}$/.test(nonce));
    const signature = await sshSign(alice.key, nonce);
    const r = await postJson(api("/login/verify"), { username: "alice", nonce, signature });
    assertEquals(r.status, 200);
    assert(/^SERVICE_[0-9a-f]{64}$/.test(r.body.token as string));
    assertEquals(r.body.user, { id: alice.id, username: "alice" });
    // Reused nonce.
    const reuse = await postJson(api("/login/verify"), { username: "alice", nonce, signature });
    assertEquals(reuse.status, 401);
    assertEquals(reuse.body.token, undefined);
    const who = await fetch(api("/user"), {
      headers: { Authorization: `Bearer ${r.body.token}` },
    });
    assertEquals((await who.json()).user.username, "alice");
  });

  await t.step("login rejections issue no token", async () => {
    const fresh = async (u = "alice") =>
      (await postJson(api("/login/challenge"), { username: u })).body.nonce as string;
    const cases: [string, () => Promise<Record<string, unknown>>][] = [
      ["wrong namespace", async () => {
        const nonce = await fresh();
        return { username: "alice", nonce, signature: await sshSign(alice.key, nonce, "git") };
      }],
      ["other user's key", async () => {
        const nonce = await fresh();
        return { username: "alice", nonce, signature: await sshSign(mallory.key, nonce) };
      }],
      ["nonce of another user", async () => {
        const nonce = await fresh("mallory");
        return { username: "alice", nonce, signature: await sshSign(alice.key, nonce) };
      }],
      ["trailing newline", async () => {
        const nonce = await fresh();
        return { username: "alice", nonce, signature: await sshSign(alice.key, nonce + "\n") };
      }],
      ["another nonce", async () => {
        const nonce = await fresh();
        return { username: "alice", nonce, signature: await sshSign(alice.key, await fresh()) };
      }],
      ["raw signature", async () => {
        const nonce = await fresh();
        return { username: "alice", nonce, signature: btoa("x".repeat(64)) };
      }],
      ["never issued nonce", async () => {
        const nonce = "ab".repeat(32);
        return { username: "alice", nonce, signature: await sshSign(alice.key, nonce) };
      }],
      ["unknown user", async () => {
        const nonce = await fresh("nobody");
        return { username: "nobody", nonce, signature: await sshSign(alice.key, nonce) };
      }],
    ];
    for (const [name, make] of cases) {
      const r = await postJson(api("/login/verify"), await make());
      assert(r.status === 401 || r.status === 400, `${name}: ${r.status}`);
      assertEquals(r.body.token, undefined, name);
      assertEquals(typeof r.body.error, "string", name);
    }
  });

  await t.step({
    name: "expired challenge is refused and cleaned up on the next challenge",
    fn: async () => {
      const nonce = (await postJson(api("/login/challenge"), { username: "alice" })).body
        .nonce as string;
      const db = await serverSql(server.dataDir);
      await db.query(
        "UPDATE challenges SET created_ms = created_ms - 301000 WHERE nonce = ?",
        nonce,
      );
      const r = await postJson(api("/login/verify"), {
        username: "alice",
        nonce,
        signature: await sshSign(alice.key, nonce),
      });
      assertEquals(r.status, 401);
      assertStringIncludes(r.body.error as string, "expired");
      await postJson(api("/login/challenge"), { username: "alice" });
      const left = await db.query<{ n: number }>(
        "SELECT COUNT(*) AS n FROM challenges WHERE nonce = ?",
        nonce,
      );
      assertEquals(Number(left[0].n), 0);
      await db.close();
    },
  });

  await t.step("20 concurrent verifies of one challenge yield at most one token", async () => {
    const nonce = (await postJson(api("/login/challenge"), { username: "alice" })).body
      .nonce as string;
    const signature = await sshSign(alice.key, nonce);
    const rs = await Promise.all(
      Array.from(
        { length: 20 },
        () => postJson(api("/login/verify"), { username: "alice", nonce, signature }),
      ),
    );
    assertEquals(rs.filter((r) => r.status === 200).length, 1);
  });

  await t.step("repositories: create, list, get, delete, owner only", async () => {
    const token = await login(server, alice);
    const mtoken = await login(server, mallory);
    const auth = { Authorization: `Bearer ${token}` };
    const created = await postJson(api("/repos"), { name: "proj.git" }, auth);
    assertEquals(created.status, 201);
    const repo = created.body.repo as {
      owner: string;
      name: string;
      clone_urls: { http: string; ssh: string };
    };
    assertEquals([repo.owner, repo.name], ["alice", "proj"]);
    assertEquals(repo.clone_urls.http, `${server.httpUrl}/alice/proj.git`);
    assertStringIncludes(repo.clone_urls.ssh, `:${server.sshPort}/alice/proj.git`);
    assertEquals((await postJson(api("/repos"), { name: "proj" }, auth)).status, 409);
    assertEquals((await postJson(api("/repos"), { name: "proj" })).status, 401);
    assertEquals(
      (await postJson(api("/repos"), { name: "proj" }, {
        Authorization: "Bearer SERVICE_" + "0".repeat(64),
      })).status,
      401,
    );
    for (const name of ["..", "../x", "-x", ".hidden", "a/b", "", "x".repeat(101), "é", 5]) {
      assertEquals((await postJson(api("/repos"), { name }, auth)).status, 400, String(name));
    }
    await Deno.stat(`${server.dataDir}/repos/alice/proj.git/HEAD`);
    const list = await (await fetch(api("/repos?owner=alice"))).json();
    assertEquals(list.repos.map((r: { name: string }) => r.name), ["proj"]);
    assertEquals((await fetch(api("/repos?owner=ghost"))).status, 404);
    assertEquals((await fetch(api("/repos/alice/proj"))).status, 200);
    assertEquals((await fetch(api("/repos/alice/nope"))).status, 404);
    const del = (tok: string) =>
      fetch(api("/repos/alice/proj"), {
        method: "DELETE",
        headers: { Authorization: `Bearer ${tok}` },
      });
    const denied = await del(mtoken);
    assertEquals(denied.status, 403);
    await denied.body?.cancel();
    const gone = await del(token);
    assertEquals(gone.status, 200);
    assertEquals((await gone.json()).deleted, "alice/proj");
    let exists = true;
    try {
      await Deno.stat(`${server.dataDir}/repos/alice/proj.git`);
    } catch {
      exists = false;
    }
    assertEquals(exists, false);
  });

  await t.step("admin listings", async () => {
    const token = await login(server, alice);
    await createRepo(server, token, "listed");
    const users = await (await fetch(api("/admin/users"), { headers: admin })).json();
    const a = users.users.find((u: { username: string }) => u.username === "alice");
    assert(a.fingerprint.startsWith("SHA256:"));
    assertEquals(a.repo_count, 1);
    const invites = await (await fetch(api("/admin/invites"), { headers: admin })).json();
    assert(
      invites.invites.some((i: { state: string; used_by: { username: string } | null }) =>
        i.state === "used" && i.used_by?.username === "alice"
      ),
    );
    const repos = await (await fetch(api("/admin/repos"), { headers: admin })).json();
    assert(
      repos.repos.some((r: { name: string; size_bytes: number }) =>
        r.name === "listed" && r.size_bytes > 0
      ),
    );
    assertEquals((await fetch(api("/admin/users"))).status, 401);
  });

  await t.step("oversized body is 413, unknown route 404, all JSON", async () => {
    const big = await postJson(api("/signup"), JSON.stringify({ username: "x".repeat(100_000) }));
    assertEquals(big.status, 413);
    assertEquals(typeof big.body.error, "string");
    // A chunked body is bounded as it arrives.
    const chunk = "x".repeat(40_000);
    const size = chunk.length.toString(16);
    const chunked = await firstAnswer(
      server.httpPort,
      "POST /api/signup HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" +
        `Transfer-Encoding: chunked\r\n\r\n${size}\r\n${chunk}\r\n${size}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    assertEquals(chunked.status, 413);
    assertEquals(JSON.parse(chunked.body).error, "request body too large");
    const res = await fetch(api("/nope"));
    assertEquals(res.status, 404);
    assertEquals(typeof (await res.json()).error, "string");
    // A route's path with a method it does not take: 405, saying which it does.
    const put = await fetch(api("/repos"), { method: "PUT", body: "{}" });
    assertEquals(put.status, 405);
    assertEquals(put.headers.get("allow"), "GET, HEAD, POST");
    assertEquals(
      (await put.json()).error,
      "PUT is not allowed on /api/repos: it takes GET, HEAD, POST",
    );
  });

  await t.step({
    name: "the raw token is nowhere in the data dir, its SHA-256 is",
    ignore: ON_POSTGRES, // the data dir holds the database only on SQLite
    fn: async () => {
      const token = await login(server, alice);
      const hash = Array.from(
        new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))),
      )
        .map((b) => b.toString(16).padStart(2, "0")).join("");
      const { DatabaseSync } = await import("node:sqlite");
      const db = new DatabaseSync(`${server.dataDir}/signet.db`);
      db.exec("PRAGMA wal_checkpoint(FULL)");
      db.close();
      let foundRaw = false;
      let foundHash = false;
      const walk = async (dir: string) => {
        for await (const e of Deno.readDir(dir)) {
          const p = `${dir}/${e.name}`;
          if (e.isDirectory) await walk(p);
          else if (e.isFile) {
            const text = new TextDecoder("latin1").decode(await Deno.readFile(p));
            if (text.includes(token) || text.includes(token.slice(8))) foundRaw = true;
            if (text.includes(hash)) foundHash = true;
          }
        }
      };
      await walk(server.dataDir);
      assertEquals(foundRaw, false);
      assertEquals(foundHash, true);
    },
  });
});
