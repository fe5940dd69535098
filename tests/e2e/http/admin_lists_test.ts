/**
 * Paged listings (issue 27): admin repositories, users and invites, and `GET /api/repos`, against
 * the real server: keyset pages with totals and offsets, sorts, filters, bad parameters as 400
 * JSON, and repository sizes kept in the row after a push instead of walked per request.
 */
import { pollUntil } from "../../helpers/wait.ts";
import { serverSql } from "../../../testing/database.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, makeKey, mintInvite, postJson, signedIn } from "../../../testing/accounts.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFile } from "../../helpers/git.ts";

interface ListReply {
  total: number;
  offset: number;
  limit: number;
  sort: string;
  order: string;
  next: string | null;
  prev: string | null;
  [key: string]: unknown;
}

interface RepoItem {
  owner: string;
  name: string;
  created_at: string;
  pushed_at: string | null;
  size_bytes: number;
}

serverTest("paged listings: admin repositories, users, invites and GET /api/repos", {}, async (
  server,
  t,
) => {
  const admin = { Authorization: `Bearer ${server.adminKey}` };
  const get = async (path: string, headers: HeadersInit = admin) => {
    const res = await fetch(`${server.httpUrl}${path}`, { headers });
    const body = await res.json();
    return { status: res.status, body: body as ListReply };
  };
  const alice = await signedIn(server, "alice");
  const bob = await signedIn(server, "bob");
  await signedIn(server, "carol");
  const aliceRepos = ["web-1", "web-2", "notes", "Zed", "docs", "site", "tools"];
  for (const n of aliceRepos) await createRepo(server, alice.token, n);
  for (const n of ["web-3", "api", "x"]) await createRepo(server, bob.token, n);
  const all = [
    ...aliceRepos.map((n) => `alice/${n}`),
    ...["web-3", "api", "x"].map((n) => `bob/${n}`),
  ]
    .sort();
  const names = (r: ListReply) => (r.repos as RepoItem[]).map((x) => `${x.owner}/${x.name}`);

  // Follows `next` from the first page, then `prev` back; returns the pages' names and offsets.
  async function walk(path: string, pick: (r: ListReply) => string[] = names) {
    const sep = path.includes("?") ? "&" : "?";
    const forward: string[][] = [];
    const offsets: number[] = [];
    let page = (await get(path)).body;
    let last = page;
    for (;;) {
      forward.push(pick(page));
      offsets.push(page.offset);
      last = page;
      if (!page.next) break;
      const r = await get(`${path}${sep}after=${page.next}`);
      assertEquals(r.status, 200);
      page = r.body;
    }
    const backward: string[][] = [];
    page = last;
    while (page.prev) {
      const r = await get(`${path}${sep}before=${page.prev}`);
      assertEquals(r.status, 200);
      page = r.body;
      backward.unshift(pick(page));
    }
    return { forward, offsets, backward, total: last.total };
  }

  await t.step("admin repositories: next through every page, prev back to the first", async () => {
    const { forward, offsets, backward, total } = await walk("/api/admin/repos?limit=3");
    assertEquals(total, 10);
    assertEquals(forward.flat(), all);
    assertEquals(forward.map((p) => p.length), [3, 3, 3, 1]);
    assertEquals(offsets, [0, 3, 6, 9]);
    assertEquals(backward, forward.slice(0, -1));
    const first = (await get("/api/admin/repos?limit=3")).body;
    assertEquals([first.sort, first.order, first.limit, first.prev], ["name", "asc", 3, null]);
    assert(
      (first.repos as RepoItem[]).every((r) => r.size_bytes > 0),
      "sizes are stored at create",
    );
    assert((first.size_bytes_total as number) > 0);
    const everything = (await get("/api/admin/repos")).body;
    assertEquals([names(everything), everything.limit, everything.next], [all, 50, null]);
  });

  await t.step("sorts: name descending, created newest first, pushed", async () => {
    const desc = (await get("/api/admin/repos?order=desc&limit=100")).body;
    assertEquals(names(desc), [...all].reverse());
    const created = await walk("/api/admin/repos?sort=created&limit=4");
    assertEquals(created.forward.flat(), [
      ...["web-3", "api", "x"].reverse().map((n) => `bob/${n}`),
      ...[...aliceRepos].reverse().map((n) => `alice/${n}`),
    ]);
    const oldest = (await get("/api/admin/repos?sort=created&order=asc&limit=2")).body;
    assertEquals(names(oldest), ["alice/web-1", "alice/web-2"]);
    const pushed = await walk("/api/admin/repos?sort=pushed&limit=4");
    assertEquals(pushed.forward.flat().length, 10);
  });

  await t.step("filters: words of owner/name, and one owner", async () => {
    const web = (await get("/api/admin/repos?q=WEB")).body;
    assertEquals([names(web), web.total, web.q], [
      ["alice/web-1", "alice/web-2", "bob/web-3"],
      3,
      "web",
    ]);
    const two = (await get("/api/admin/repos?q=bob%20web")).body;
    assertEquals(names(two), ["bob/web-3"]);
    const bobs = (await get("/api/admin/repos?owner=bob")).body;
    assertEquals([names(bobs), bobs.total], [["bob/api", "bob/web-3", "bob/x"], 3]);
    const none = (await get("/api/admin/repos?q=nothing-like-this")).body;
    assertEquals([none.repos, none.total, none.offset, none.next, none.prev], [
      [],
      0,
      0,
      null,
      null,
    ]);
  });

  await t.step("GET /api/repos pages the same way and keeps its shape", async () => {
    const mine = await walk("/api/repos?owner=alice&limit=2");
    assertEquals(mine.forward.flat(), all.filter((n) => n.startsWith("alice/")));
    assertEquals(mine.total, 7);
    const first = (await get("/api/repos?owner=alice&limit=2", {})).body;
    const repo = (first.repos as Record<string, unknown>[])[0];
    assertEquals(Object.keys(repo).sort(), [
      "clone_urls",
      "created_at",
      "name",
      "owner",
      "pushed_at",
    ]);
    const everyone = await walk("/api/repos?sort=created&order=asc&limit=6");
    assertEquals(everyone.total, 10);
    assertEquals((await get("/api/repos?owner=nobody")).status, 404);
  });

  await t.step("admin users: pages, sorts, filter, repository counts", async () => {
    const usernames = (r: ListReply) => (r.users as { username: string }[]).map((u) => u.username);
    const users = await walk("/api/admin/users?limit=2", usernames);
    assertEquals([users.forward, users.backward], [[["alice", "bob"], ["carol"]], [[
      "alice",
      "bob",
    ]]]);
    const r = (await get("/api/admin/users?limit=2")).body;
    const list = r.users as { username: string; repo_count: number; fingerprint: string }[];
    assertEquals(list.map((u) => [u.username, u.repo_count]), [["alice", 7], ["bob", 3]]);
    assert(list[0].fingerprint.startsWith("SHA256:"));
    const newest = (await get("/api/admin/users?sort=created")).body;
    assertEquals((newest.users as { username: string }[]).map((u) => u.username), [
      "carol",
      "bob",
      "alice",
    ]);
    const q = (await get("/api/admin/users?q=o")).body;
    assertEquals([(q.users as { username: string }[]).map((u) => u.username), q.total], [
      ["bob", "carol"],
      2,
    ]);
  });

  await t.step("admin user page: the account, its key, its live tokens", async () => {
    const r = await get("/api/admin/users/alice");
    assertEquals(r.status, 200);
    const body = r.body as unknown as {
      user: { username: string; fingerprint: string; repo_count: number; public_key: string };
      tokens: { id: number; last_used_at: string | null }[];
    };
    assertEquals([body.user.username, body.user.repo_count], ["alice", 7]);
    assertEquals(body.user.public_key, alice.user.key.publicLine.split(" ").slice(0, 2).join(" "));
    assert(body.user.fingerprint.startsWith("SHA256:"));
    assertEquals(body.tokens.length, 1);
    assert(/^inv_[0-9a-f]{32}$/.test((r.body.invite as { code: string }).code));
    assertEquals((await get("/api/admin/users/nobody")).status, 404);
    assertEquals((await get("/api/admin/users/Bad%20Name")).status, 400);
    assertEquals((await get("/api/admin/users/alice", {})).status, 401);
  });

  await t.step("admin invites: newest first, pages, state filter, unused count", async () => {
    await mintInvite(server);
    await mintInvite(server);
    const page = (await get("/api/admin/invites?limit=2")).body;
    assertEquals([page.total, page.unused, page.offset], [5, 2, 0]);
    const invites = page.invites as { state: string }[];
    assertEquals(invites.map((i) => i.state), ["unused", "unused"]);
    const rest = (await get(`/api/admin/invites?limit=2&after=${page.next}`)).body;
    assertEquals([(rest.invites as unknown[]).length, rest.offset], [2, 2]);
    const used = (await get("/api/admin/invites?state=used")).body;
    assertEquals(used.total, 3);
    assert((used.invites as { state: string }[]).every((i) => i.state === "used"));
  });

  await t.step("invites expire and unused ones can be revoked", async () => {
    const mint = (body: unknown) => postJson(`${server.httpUrl}/api/admin/invites`, body, admin);
    const week = await mint("");
    assertEquals(week.status, 201);
    const days = (Date.parse(week.body.expires_at as string) - Date.now()) / 86_400_000;
    assert(days > 6.9 && days <= 7, `default lifetime ${days} days`);
    const day = await mint({ expires_in_days: 1 });
    assertEquals(day.status, 201);
    for (
      const bad of [{ expires_in_days: 0 }, { expires_in_days: 366 }, { expires_in_days: "7" }, []]
    ) {
      const r = await mint(bad);
      assertEquals(r.status, 400, JSON.stringify(bad));
      assertEquals(typeof r.body.error, "string");
    }
    assertEquals((await mint("{nope")).status, 400);

    // An invite past its expiry signs nobody up, and lists as expired.
    const db = await serverSql(server.dataDir);
    try {
      await db.query(
        "UPDATE invites SET expires_at = ? WHERE code = ?",
        "2020-01-01T00:00:00.000Z",
        day.body.code as string,
      );
    } finally {
      await db.close();
    }
    const key = await makeKey("late");
    const late = await postJson(`${server.httpUrl}/api/signup`, {
      username: "late",
      public_key: key.publicLine,
      invite_code: day.body.code,
    });
    assertEquals([late.status, late.body.error], [400, "invite code has expired"]);
    const expired = (await get("/api/admin/invites?state=expired")).body;
    assertEquals(
      (expired.invites as { code: string; state: string }[]).map((i) => [i.code, i.state]),
      [[day.body.code, "expired"]],
    );
    const unused = (await get("/api/admin/invites?state=unused")).body;
    assertEquals([unused.total, unused.unused], [3, 3]);

    // Revoke: an unused invite goes (then signs nobody up); a used one stays.
    const del = (code: string) =>
      fetch(`${server.httpUrl}/api/admin/invites/${code}`, { method: "DELETE", headers: admin })
        .then(async (r) => ({ status: r.status, body: await r.json() }));
    assertEquals(await del(week.body.code as string), {
      status: 200,
      body: { revoked: week.body.code },
    });
    assertEquals((await del(week.body.code as string)).status, 404);
    const revokedSignup = await postJson(`${server.httpUrl}/api/signup`, {
      username: "late",
      public_key: key.publicLine,
      invite_code: week.body.code,
    });
    assertEquals(revokedSignup.status, 400);
    const usedCode = ((await get("/api/admin/invites?state=used")).body.invites as {
      code: string;
    }[])[0].code;
    const usedDel = await del(usedCode);
    assertEquals(usedDel.status, 409);
    assertStringIncludes(usedDel.body.error, "cannot be revoked");
    assertEquals((await del("not-a-code")).status, 404);
    const noKey = await fetch(`${server.httpUrl}/api/admin/invites/${usedCode}`, {
      method: "DELETE",
    });
    await noKey.body?.cancel();
    assertEquals(noKey.status, 401);
  });

  await t.step("bad parameters are 400 JSON naming what is allowed, never 500", async () => {
    const created = (await get("/api/admin/repos?sort=created&limit=1")).body.next!;
    const byName = (await get("/api/admin/repos?limit=1")).body.next!;
    const cases: [string, string][] = [
      ["/api/admin/repos?limit=0", "limit must be an integer from 1 to 100"],
      ["/api/admin/repos?limit=101", "limit must be an integer from 1 to 100"],
      ["/api/admin/repos?limit=abc", "limit"],
      ["/api/admin/repos?limit=-1", "limit"],
      ["/api/admin/repos?limit=1.5", "limit"],
      ["/api/admin/repos?limit=99999999999999999999", "limit"],
      ["/api/admin/repos?sort=size", "sort must be one of name, created, pushed"],
      ["/api/admin/repos?order=up", "order must be asc or desc"],
      ["/api/admin/repos?after=garbage!", "after is not a cursor"],
      ["/api/admin/repos?after=W10", "after is not a cursor"],
      ["/api/admin/repos?before=bm90IGpzb24", "before is not a cursor"],
      [`/api/admin/repos?after=${created}`, "another sort"],
      [`/api/admin/repos?order=desc&after=${byName}`, "another sort"],
      [`/api/admin/repos?after=${byName}&before=${byName}`, "not both"],
      [`/api/admin/repos?q=${"a".repeat(101)}`, "q must be at most 100 characters"],
      ["/api/admin/repos?q=a%00b", "control characters"],
      ["/api/admin/repos?q=a+b+c+d+e+f+g+h+i", "words"],
      ["/api/admin/repos?owner=Bad%20Name", "username"],
      ["/api/repos?limit=0", "limit"],
      ["/api/repos?sort=bogus", "sort"],
      ["/api/admin/users?sort=pushed", "sort must be one of name, created"],
      ["/api/admin/users?after=%E2%82%AC", "after is not a cursor"],
      ["/api/admin/invites?state=bogus", "state must be one of unused, used, expired"],
      ["/api/admin/invites?sort=name", "sort must be one of created"],
    ];
    for (const [path, message] of cases) {
      const r = await get(path);
      assertEquals(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      assertStringIncludes(String(r.body.error), message, path);
    }
    // A cursor with a wrong key type or a NUL in it is refused before any store sees it.
    const forge = (v: unknown) =>
      btoa(JSON.stringify(v)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    for (
      const c of [
        ["name", "asc", "alice", 1],
        ["created", "desc", "2026", "1"],
        ["name", "asc", "a\u0000", "b"],
        ["created", "desc", "x", 1.5],
      ]
    ) {
      const path = `/api/admin/repos?sort=${c[0]}&order=${c[1]}&after=${forge(c)}`;
      assertEquals((await get(path)).status, 400, path);
    }
    assertEquals((await get("/api/admin/repos", {})).status, 401);
  });

  await t.step("a push updates the stored size; listing reads the row, not the disk", async () => {
    await createRepo(server, alice.token, "sized");
    const find = async () =>
      ((await get("/api/admin/repos?owner=alice&q=sized")).body.repos as RepoItem[])[0];
    const before = await find();
    assert(before.size_bytes > 0);
    assertEquals(before.pushed_at, null);
    const home = await Deno.makeTempDir();
    const work = `${home}/sized`;
    const env = gitEnv(home);
    await runOk("git", ["init", "-q", "-b", "main", work], { env });
    const noise = Array.from({ length: 4000 }, (_, i) => `${i * 7919 % 10007}`).join("\n");
    await commitFile(work, env, "data.txt", noise, "first");
    const remote = `http://alice:${alice.token}@127.0.0.1:${server.httpPort}/alice/sized.git`;
    await runOk("git", ["push", "-q", remote, "main"], { cwd: work, env });
    // The push is recorded once git has exited, beside the response: wait for it (bounded).
    const after = await pollUntil(find, (r) => r.pushed_at !== null);
    assert(after.pushed_at !== null, "the push was recorded");
    assert(after.size_bytes > before.size_bytes, `${after.size_bytes} > ${before.size_bytes}`);

    // Bytes added behind the server's back do not show: the size is the stored one.
    const dir = `${server.dataDir}/repos/alice/sized.git`;
    await Deno.writeFile(`${dir}/planted`, new Uint8Array(1_000_000));
    assertEquals((await find()).size_bytes, after.size_bytes);
    // A row without a size (stored before sizes were) is measured once, when first listed.
    const db = await serverSql(server.dataDir);
    try {
      await db.query("UPDATE repos SET size_bytes = NULL WHERE name = ?", "sized");
      const measured = (await find()).size_bytes;
      assert(measured >= after.size_bytes + 1_000_000, `${measured}`);
      const [row] = await db.query<{ size_bytes: number }>(
        "SELECT size_bytes FROM repos WHERE name = ?",
        "sized",
      );
      assertEquals(Number(row.size_bytes), measured);
    } finally {
      await db.close();
    }
  });
});
