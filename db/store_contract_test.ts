/**
 * The storage contract of the hosting resources (users, invites, challenges, tokens, repos,
 * transactions): the same cases run against every engine, each on a fresh database, and the
 * engines must return the same rows for the same inputs (tests/helpers/store_contract.ts). The
 * registry's resources: db/registry_store_contract_test.ts. PostgreSQL runs on a throwaway cluster
 * (testing/postgres.ts), or on SERVICE_TEST_POSTGRES_URL's when set.
 */
import { assert, assertRejects } from "../tests/helpers/assert.ts";
import { DomainError } from "../protocol/errors.ts";
import {
  assertEquals,
  bot,
  type Case,
  contractSuite,
  delay,
  ISO,
  stable,
} from "../tests/helpers/store_contract.ts";

const CASES: Record<string, Case> = {
  async "users: insert, find, list, conflicts"(open) {
    const s = await open();
    const alice = await s.users.insert("alice", "ssh-ed25519 AAAA");
    assertEquals(alice.id, 1);
    assertEquals(await s.users.findByName("alice"), alice);
    assertEquals(await s.users.findById(alice.id), alice);
    assertEquals(await s.users.findByKey("ssh-ed25519 AAAA"), alice);
    assertEquals(await s.users.findByName("nobody"), undefined);
    assertEquals(await s.users.findById(999), undefined);
    const e1 = <DomainError> await assertRejects(
      () => s.users.insert("alice", "ssh-ed25519 BBBB"),
      DomainError,
    );
    assertEquals([e1.kind, e1.message], ["conflict", "username alice is already taken"]);
    const e2 = await assertRejects(() => s.users.insert("bob", "ssh-ed25519 AAAA"), DomainError);
    assertEquals(e2.message, "this public key is already registered to another account");
    const bob = await s.users.insert("bob", "ssh-ed25519 BBBB");
    await s.repos.insert(bob.id, "r1");
    await s.repos.insert(bob.id, "r2");
    const list = await s.users.list();
    assertEquals(list.map((u) => [u.username, u.repo_count]), [["alice", 0], ["bob", 2]]);
    assertEquals(typeof list[0].id, "number");
    return stable({ alice, bob, list });
  },

  async "invites: insert, find, consume, list newest first"(open) {
    const s = await open();
    const admin = await s.users.insert("admin", "k-admin");
    const i1 = await s.invites.insert("code1", admin.id);
    const i2 = await s.invites.insert("code2", null);
    assertEquals(i1.used_by, null);
    assertEquals(stable(await s.invites.find("code1")), stable(i1));
    assertEquals(await s.invites.find("nope"), undefined);
    const user = await s.users.insert("user", "k-user");
    assertEquals(await s.invites.consume("code1", user.id), true);
    assertEquals(await s.invites.consume("code1", admin.id), false);
    assertEquals(await s.invites.consume("nope", admin.id), false);
    const used = await s.invites.find("code1");
    assertEquals([used?.used_by, used?.used_by_username], [user.id, "user"]);
    assert(ISO.test(used!.used_at!));
    const list = await s.invites.list();
    assertEquals(list.map((i) => i.code).sort(), ["code1", "code2"]);
    assertEquals(Object.keys(list[0]).sort(), Object.keys(i2).sort());
    return stable(list.toSorted((a, b) => a.code.localeCompare(b.code)));
  },

  async "invites: consumed once by 20 concurrent transactions"(open) {
    const s = await open();
    await s.invites.insert("once", null);
    const users = [];
    for (let i = 0; i < 20; i++) users.push(await s.users.insert(`u${i}`, `key${i}`));
    const wins = await Promise.all(users.map((u) =>
      s.transaction(async (tx) => {
        const found = await tx.invites.find("once");
        await delay(2);
        return found?.used_at === null && await tx.invites.consume("once", u.id);
      })
    ));
    assertEquals(wins.filter((w) => w).length, 1);
    const winner = users[wins.indexOf(true)];
    assertEquals((await s.invites.find("once"))?.used_by, winner.id);
    return wins.filter((w) => w).length;
  },

  async "challenges: insert, find, expiry deletes; deleted once under concurrency"(open) {
    const s = await open();
    const t = Date.UTC(2026, 0, 1);
    await s.challenges.insert("alice", "n-old", t);
    await s.challenges.insert("alice", "n-new", t + 60_000);
    await s.challenges.insert("bob", "n-bob", t);
    const c = await s.challenges.find("alice", "n-old");
    assertEquals(c, {
      id: 1,
      username: "alice",
      nonce: "n-old",
      created_at: new Date(t).toISOString(),
      created_ms: t,
    });
    assertEquals(await s.challenges.find("bob", "n-old"), undefined);
    await s.challenges.deleteExpiredOf("alice", t + 1);
    assertEquals(await s.challenges.find("alice", "n-old"), undefined);
    assertEquals((await s.challenges.find("bob", "n-bob"))?.created_ms, t);
    const n = await s.challenges.find("alice", "n-new");
    const results = await Promise.all(
      Array.from({ length: 20 }, () => s.transaction((tx) => tx.challenges.delete(n!.id))),
    );
    assertEquals(results.filter((r) => r).length, 1);
    assertEquals(await s.challenges.delete(n!.id), false);
    assertEquals(await s.challenges.deleteExpired(t + 1), 1);
    assertEquals(await s.challenges.deleteExpired(t + 1), 0);
    return c;
  },

  async "tokens: insert, find, touch, live list, expiry deletes"(open) {
    const s = await open();
    const u = await s.users.insert("alice", "k1");
    const v = await s.users.insert("bob", "k2");
    const id1 = await s.tokens.insert(
      "h1",
      u.id,
      "2026-01-01T00:00:00.000Z",
      "2026-02-01T00:00:00.000Z",
    );
    const id2 = await s.tokens.insert(
      "h2",
      u.id,
      "2026-01-02T00:00:00.000Z",
      "2026-03-01T00:00:00.000Z",
    );
    const id3 = await s.tokens.insert(
      "h3",
      v.id,
      "2026-01-02T00:00:00.000Z",
      "2026-01-15T00:00:00.000Z",
    );
    assertEquals([id1, id2, id3], [1, 2, 3]);
    const found = await s.tokens.findWithUser("h1");
    assertEquals(found?.user, u);
    const t1 = found?.token;
    assertEquals(t1, {
      id: 1,
      user_id: u.id,
      created_at: "2026-01-01T00:00:00.000Z",
      expires_at: "2026-02-01T00:00:00.000Z",
      last_used_at: null,
    });
    assertEquals(await s.tokens.findById(id1), t1);
    assertEquals(await s.tokens.findWithUser("nope"), undefined);
    await s.tokens.touch(id1, "2026-01-10T00:00:00.000Z");
    assertEquals((await s.tokens.findById(id1))?.last_used_at, "2026-01-10T00:00:00.000Z");
    const live = await s.tokens.listLiveOf(u.id, "2026-02-01T00:00:00.000Z");
    assertEquals(live.map((t) => t.id), [id2]);
    assertEquals((await s.tokens.listLiveOf(u.id, "2026-01-05T00:00:00.000Z")).length, 2);
    await s.tokens.deleteExpiredOf(u.id, "2026-02-01T00:00:00.000Z");
    assertEquals(await s.tokens.findById(id1), undefined);
    assertEquals(await s.tokens.deleteExpired("2026-02-01T00:00:00.000Z"), 1);
    assertEquals(await s.tokens.delete(id2), true);
    assertEquals(await s.tokens.delete(id2), false);
    return { t1, live };
  },

  async "repos: insert, find, list by owner then name, conflict, touch, delete"(open) {
    const s = await open();
    const b = await s.users.insert("bob", "k2");
    const a = await s.users.insert("alice", "k1");
    const r1 = await s.repos.insert(b.id, "zeta");
    await s.repos.insert(b.id, "Alpha");
    await s.repos.insert(a.id, "beta");
    const e = <DomainError> await assertRejects(() => s.repos.insert(b.id, "zeta"), DomainError);
    assertEquals([e.kind, e.message], ["conflict", "repository bob/zeta already exists"]);
    const found = await s.repos.find("bob", "zeta");
    assertEquals(found?.id, r1);
    assertEquals(found?.owner, "bob");
    assertEquals(found?.pushed_at, null);
    assertEquals(await s.repos.find("alice", "zeta"), undefined);
    const all = await s.repos.list();
    assertEquals(all.map((r) => `${r.owner}/${r.name}`), ["alice/beta", "bob/Alpha", "bob/zeta"]);
    assertEquals((await s.repos.list("bob")).map((r) => r.name), ["Alpha", "zeta"]);
    await s.repos.touchPushed(r1);
    assert(ISO.test((await s.repos.find("bob", "zeta"))!.pushed_at!));
    assertEquals(await s.repos.delete(r1), true);
    assertEquals(await s.repos.find("bob", "zeta"), undefined);
    assertEquals(await s.repos.delete(r1), false, "a second delete finds nothing");
    return stable(all);
  },

  async "repos: keyset pages with totals, offsets, sorts, filters and stored sizes"(open) {
    const s = await open();
    const b = await s.users.insert("bob", "k2");
    const a = await s.users.insert("alice", "k1");
    const names = ["zeta", "Alpha", "web-1", "web-2", "notes"];
    const ids: number[] = [];
    for (const [i, n] of names.entries()) ids.push(await s.repos.insert(i % 2 ? a.id : b.id, n, i));
    // By name: alice/Alpha, alice/web-2, bob/notes, bob/web-1, bob/zeta (bytes order).
    const full = (p: { rows: { owner: string; name: string }[] }) =>
      p.rows.map((r) => `${r.owner}/${r.name}`);
    const p1 = await s.repos.page({ sort: "name", order: "asc", limit: 2 });
    assertEquals(full(p1), ["alice/Alpha", "alice/web-2"]);
    assertEquals([p1.total, p1.offset, p1.prev], [5, 0, null]);
    assertEquals(p1.next, ["alice", "web-2"]);
    const p2 = await s.repos.page({ sort: "name", order: "asc", limit: 2, after: p1.next! });
    assertEquals(full(p2), ["bob/notes", "bob/web-1"]);
    assertEquals([p2.offset, p2.prev, p2.next], [2, ["bob", "notes"], ["bob", "web-1"]]);
    const p3 = await s.repos.page({ sort: "name", order: "asc", limit: 2, after: p2.next! });
    assertEquals([full(p3), p3.offset, p3.next], [["bob/zeta"], 4, null]);
    const back = await s.repos.page({ sort: "name", order: "asc", limit: 2, before: p3.prev! });
    assertEquals([full(back), back.offset], [full(p2), 2]);
    const first = await s.repos.page({ sort: "name", order: "asc", limit: 2, before: p2.prev! });
    assertEquals([full(first), first.offset, first.prev], [full(p1), 0, null]);
    const desc = await s.repos.page({ sort: "name", order: "desc", limit: 3 });
    assertEquals(full(desc), ["bob/zeta", "bob/web-1", "bob/notes"]);
    const past = await s.repos.page({ sort: "name", order: "asc", limit: 2, after: ["zz", "z"] });
    assertEquals([past.rows, past.total, past.offset, past.next], [[], 5, 5, null]);
    // Filters: words of owner/name (case-insensitive), and one owner.
    const web = await s.repos.page({ sort: "name", order: "asc", limit: 10, words: ["web"] });
    assertEquals([full(web), web.total], [["alice/web-2", "bob/web-1"], 2]);
    const both = await s.repos.page({
      sort: "name",
      order: "asc",
      limit: 10,
      words: ["bob/", "-1"],
    });
    assertEquals(full(both), ["bob/web-1"]);
    const alpha = await s.repos.page({ sort: "name", order: "asc", limit: 10, words: ["alpha"] });
    assertEquals(full(alpha), ["alice/Alpha"]);
    const mine = await s.repos.page({ sort: "name", order: "asc", limit: 10, owner: "alice" });
    assertEquals([full(mine), mine.total], [["alice/Alpha", "alice/web-2"], 2]);
    // Created (newest first, ties by id) and pushed (never pushed last).
    const created = await s.repos.page({ sort: "created", order: "desc", limit: 10 });
    assertEquals(created.rows.map((r) => r.id), [...ids].sort((x, y) => y - x));
    await s.repos.touchPushed(ids[0], 1234);
    await delay(5);
    await s.repos.touchPushed(ids[3]);
    const pushed1 = await s.repos.page({ sort: "pushed", order: "desc", limit: 1 });
    assertEquals(full(pushed1), ["alice/web-2"]);
    const pushed2 = await s.repos.page({
      sort: "pushed",
      order: "desc",
      limit: 10,
      after: pushed1.next!,
    });
    assertEquals(full(pushed2), ["bob/zeta", "bob/notes", "bob/web-1", "alice/Alpha"]);
    assertEquals(pushed2.offset, 1);
    // Sizes: stored at insert, by a push, or set.
    assertEquals((await s.repos.find("bob", "zeta"))!.size_bytes, 1234);
    assertEquals((await s.repos.find("alice", "web-2"))!.size_bytes, 3, "a push without a size");
    await s.repos.setSize(ids[4], 10_000_000_000);
    assertEquals((await s.repos.find("bob", "notes"))!.size_bytes, 10_000_000_000);
    assertEquals(await s.repos.totalSize(), 1234 + 1 + 2 + 3 + 10_000_000_000);
    return stable({ p1, p2, p3, back, web, pushed: full(pushed2) });
  },

  async "users and invites: keyset pages with totals, filters, states"(open) {
    const s = await open();
    const users = [];
    for (const n of ["carol", "alice", "bob", "dave"]) {
      users.push(await s.users.insert(n, `k-${n}`));
    }
    await s.repos.insert(users[1].id, "r1");
    const p1 = await s.users.page({ sort: "name", order: "asc", limit: 3 });
    assertEquals(p1.rows.map((u) => [u.username, u.repo_count]), [
      ["alice", 1],
      ["bob", 0],
      ["carol", 0],
    ]);
    assertEquals([p1.total, p1.offset, p1.next], [4, 0, ["carol", users[0].id]]);
    const p2 = await s.users.page({ sort: "name", order: "asc", limit: 3, after: p1.next! });
    assertEquals([p2.rows.map((u) => u.username), p2.offset, p2.next], [["dave"], 3, null]);
    const byAge = await s.users.page({ sort: "created", order: "desc", limit: 10 });
    assertEquals(byAge.rows.map((u) => u.username), ["dave", "bob", "alice", "carol"]);
    const a = await s.users.page({ sort: "name", order: "asc", limit: 10, words: ["a"] });
    assertEquals([a.rows.map((u) => u.username), a.total], [["alice", "carol", "dave"], 3]);

    for (const c of ["c1", "c2", "c3"]) await s.invites.insert(c, null);
    const exp = await s.invites.insert("c4", null, "2030-01-01T00:00:00.000Z");
    assertEquals(exp.expires_at, "2030-01-01T00:00:00.000Z");
    assertEquals((await s.invites.find("c4"))?.expires_at, "2030-01-01T00:00:00.000Z");
    assertEquals((await s.invites.find("c1"))?.expires_at, null);
    await s.invites.consume("c2", users[0].id);
    assertEquals((await s.invites.findUsedBy(users[0].id))?.code, "c2");
    assertEquals(await s.invites.findUsedBy(users[1].id), undefined);
    const now = "2029-01-01T00:00:00.000Z";
    const later = "2031-01-01T00:00:00.000Z";
    const i1 = await s.invites.page({ order: "desc", limit: 2, now });
    assertEquals(i1.rows.map((i) => i.code), ["c4", "c3"]);
    assertEquals([i1.total, i1.offset], [4, 0]);
    const i2 = await s.invites.page({ order: "desc", limit: 2, after: i1.next!, now });
    assertEquals([i2.rows.map((i) => i.code), i2.offset, i2.next], [["c2", "c1"], 2, null]);
    const used = await s.invites.page({ order: "desc", limit: 10, state: "used", now });
    assertEquals(used.rows.map((i) => [i.code, i.used_by_username]), [["c2", "carol"]]);
    const unused = await s.invites.page({ order: "desc", limit: 10, state: "unused", now });
    assertEquals([unused.rows.map((i) => i.code), unused.total], [["c4", "c3", "c1"], 3]);
    const expired = await s.invites.page({
      order: "desc",
      limit: 10,
      state: "expired",
      now: later,
    });
    assertEquals(expired.rows.map((i) => i.code), ["c4"]);
    assertEquals([await s.invites.countUnused(now), await s.invites.countUnused(later)], [3, 2]);
    // Revoke: only an unused invite goes.
    assertEquals(await s.invites.deleteUnused("c2"), false, "a used invite stays");
    assertEquals(await s.invites.deleteUnused("c3"), true);
    assertEquals(await s.invites.deleteUnused("c3"), false);
    assertEquals(await s.invites.find("c3"), undefined);
    assertEquals(await s.invites.consume("c3", users[1].id), false);
    return stable({ p1: p1.rows, byAge: byAge.rows, i1: i1.rows });
  },

  async "transaction: a throwing function leaves nothing behind"(open) {
    const s = await open();
    const err = await assertRejects(() =>
      s.transaction(async (tx) => {
        const u = await tx.users.insert("ghost", "k-ghost");
        await tx.invites.insert("ghost-code", u.id);
        await tx.bots.save(bot("ghost-bot", "Ghost"));
        await tx.log.lock();
        await tx.log.append({
          seq: 1,
          botId: "ghost-bot",
          operation: "create",
          entry: "{}",
          hash: "h",
          createdMs: 1,
        });
        throw new Error("boom");
      })
    );
    assertEquals((err as Error).message, "boom");
    assertEquals(await s.users.findByName("ghost"), undefined);
    assertEquals(await s.invites.find("ghost-code"), undefined);
    assertEquals(await s.bots.loadRow("ghost-bot"), undefined);
    assertEquals(await s.log.head(), undefined);
    const value = await s.transaction(async (tx) => (await tx.users.insert("real", "k-real")).id);
    assertEquals((await s.users.findById(value))?.username, "real");
    return null;
  },

  async "transaction: concurrent ones commit together; a failing one alone is undone"(open) {
    const s = await open();
    // Submitted at once, so an engine that groups commits runs them in one batch.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        s.transaction(async (tx) => {
          const u = await tx.users.insert(`user${i}`, `k-${i}`);
          if (i % 4 === 1) throw new DomainError("invalid", `no ${i}`);
          // A unique violation in the database, not only a thrown error.
          if (i % 4 === 2) await tx.users.insert(`user${i}`, `k-again-${i}`);
          return u.username;
        })),
    );
    const kept = outcomes.flatMap((o) => o.status === "fulfilled" ? [o.value] : []);
    assertEquals(kept, ["user0", "user3", "user4", "user7", "user8", "user11"]);
    for (const [i, o] of outcomes.entries()) {
      const found = await s.users.findByName(`user${i}`);
      assertEquals(found?.username, o.status === "fulfilled" ? `user${i}` : undefined);
      if (o.status === "rejected") assert(o.reason instanceof DomainError, String(o.reason));
    }
    return stable((await s.users.list()).map((u) => u.username).sort());
  },
};

contractSuite("store contract", CASES);
