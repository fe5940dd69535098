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
    const t1 = await s.tokens.findByHash("h1");
    assertEquals(t1, {
      id: 1,
      user_id: u.id,
      created_at: "2026-01-01T00:00:00.000Z",
      expires_at: "2026-02-01T00:00:00.000Z",
      last_used_at: null,
    });
    assertEquals(await s.tokens.findById(id1), t1);
    assertEquals(await s.tokens.findByHash("nope"), undefined);
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
