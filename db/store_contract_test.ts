/**
 * The storage contract: the same cases run against every engine (`ENGINES`), each on a fresh
 * database, and the engines must return the same rows for the same inputs. PostgreSQL runs on a
 * throwaway cluster (testing/postgres.ts), or on SERVICE_TEST_POSTGRES_URL's when set.
 */
import { assert, assertEquals as deepEquals, assertRejects } from "../tests/helpers/assert.ts";
import { DomainError } from "../protocol/errors.ts";
import type { Engine, Store } from "./store.ts";
import type { BotQuery, BotWrite } from "./registry_bots.ts";
import { openPostgresStore } from "./postgres/store.ts";
import { openSqliteStore } from "./sqlite/store.ts";
import { startPostgres } from "../testing/postgres.ts";

/** The engines every case runs on. */
const ENGINES: readonly Engine[] = ["sqlite", "postgres"];

type Open = () => Promise<Store>;

/** Opens fresh stores of `engine`; `cleanup` closes them and removes what they made. */
async function opener(engine: Engine): Promise<{ open: Open; cleanup(): Promise<void> }> {
  const stores: Store[] = [];
  if (engine === "sqlite") {
    const dir = await Deno.makeTempDir({ prefix: "signet-contract-" });
    let n = 0;
    return {
      open: async () => {
        const s = await openSqliteStore(`${dir}/db${++n}.sqlite`);
        stores.push(s);
        return s;
      },
      async cleanup() {
        for (const s of stores) await s.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }
  const pg = await startPostgres();
  return {
    open: async () => {
      const s = await openPostgresStore(await pg.createDatabase());
      stores.push(s);
      return s;
    },
    async cleanup() {
      for (const s of stores) await s.close();
      await pg.destroy();
    },
  };
}

/**
 * Deep equality of plain data: rows compare by their fields and values (SQLite's rows have a null
 * prototype, PostgreSQL's result arrays carry extra properties), types included.
 */
function assertEquals(actual: unknown, expected: unknown, msg?: string): void {
  deepEquals(plain(actual), plain(expected), msg);
}

function plain(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Replaces creation times (which differ between runs) so rows can be compared across engines. */
function stable<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(
      value,
      (k, v) =>
        (k === "created_at" || k === "used_at" || k === "pushed_at") && typeof v === "string"
          ? (assert(ISO.test(v), `${k} ${v}`), "<time>")
          : v,
    ),
  );
}

function bot(id: string, text: string, extra: Partial<BotWrite> = {}): BotWrite {
  return {
    botId: id,
    status: "active",
    searchText: text.toLowerCase(),
    record: JSON.stringify({ bot_id: id, text }),
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    keys: [{ keyId: "k1", publicKey: `pk-${id}`, status: "active" }],
    capabilities: [],
    controllers: [],
    ...extra,
  };
}

/**
 * One contract case: runs on a fresh store and returns what it observed (compared across
 * engines in "the engines agree").
 */
type Case = (open: Open) => Promise<unknown>;

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
    await s.repos.delete(r1);
    assertEquals(await s.repos.find("bob", "zeta"), undefined);
    return stable(all);
  },

  async "nonces: a stable key; marked used once under concurrency; purge"(open) {
    const s = await open();
    const key = await s.nonces.keyHex();
    assert(/^[0-9a-f]{64}$/.test(key), key);
    assertEquals(await s.nonces.keyHex(), key);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => s.transaction((tx) => tx.nonces.markUsed("n1", 1000))),
    );
    assertEquals(results.filter((r) => r).length, 1);
    assertEquals(await s.nonces.markUsed("n1", 1000), false);
    assertEquals(await s.nonces.markUsed("n2", 3000), true);
    assertEquals(await s.nonces.purge(2000), 1);
    assertEquals(await s.nonces.markUsed("n1", 1000), true);
    return results.filter((r) => r).length;
  },

  async "log: 20 concurrent writers make one chain; read order and filter; count"(open) {
    const s = await open();
    assertEquals(await s.log.head(), undefined);
    await Promise.all(Array.from({ length: 20 }, (_, i) =>
      s.transaction(async (tx) => {
        await tx.log.lock();
        const head = await tx.log.head();
        await delay(3); // let the others run into the lock
        const seq = (head?.seq ?? 0) + 1;
        const prev = head?.hash ?? "genesis";
        await tx.log.append({
          seq,
          botId: `bot${i % 3}`,
          operation: "update",
          entry: JSON.stringify({ seq, prev, writer: i }),
          hash: `h${seq}-${i}`,
          createdMs: 1000 * seq,
        });
      })));
    const entries = (await s.log.read({ after: 0, limit: 100 })).map((e) => JSON.parse(e));
    assertEquals(entries.map((e) => e.seq), Array.from({ length: 20 }, (_, i) => i + 1));
    assertEquals(new Set(entries.map((e) => e.writer)).size, 20);
    for (let i = 1; i < entries.length; i++) {
      assertEquals(entries[i].prev, `h${entries[i - 1].seq}-${entries[i - 1].writer}`);
    }
    assertEquals(await s.log.head(), { seq: 20, hash: `h20-${entries[19].writer}` });
    const page = (await s.log.read({ after: 5, limit: 3 })).map((e) => JSON.parse(e).seq);
    assertEquals(page, [6, 7, 8]);
    const of1 = (await s.log.read({ after: 0, limit: 100, botId: "bot1" })).map((e) =>
      JSON.parse(e)
    );
    assert(of1.length > 0);
    assertEquals(
      of1.map((e) => e.seq),
      entries.filter((e) => e.writer % 3 === 1).map((e) => e.seq),
    );
    assertEquals(await s.log.count(15_000), { total: 20, since: 6 });
    return { page, count: await s.log.count(15_000) };
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

  async "bots: save, update rewrites index rows, load, counts"(open) {
    const s = await open();
    await s.transaction((tx) =>
      tx.bots.save(bot("b1", "B1 First", { capabilities: ["chat", "code"], controllers: ["c1"] }))
    );
    await s.transaction((tx) => tx.bots.save(bot("b2", "B2 Second", { status: "suspended" })));
    assertEquals(await s.bots.loadRow("b1"), { record: bot("b1", "B1 First").record, version: 1 });
    assertEquals(await s.bots.loadRow("nope"), undefined);
    const q = (extra: Partial<BotQuery>): BotQuery => ({
      q: null,
      status: null,
      capability: null,
      after: null,
      limit: 10,
      ...extra,
    });
    assertEquals((await s.bots.search(q({ capability: "chat" }))).map((h) => h.botId), ["b1"]);
    await s.transaction((tx) =>
      tx.bots.save(
        bot("b1", "B1 Renamed", {
          version: 2,
          status: "revoked",
          capabilities: ["code"],
          controllers: [],
          keys: [
            { keyId: "k1", publicKey: "pk-b1", status: "revoked" },
            { keyId: "k2", publicKey: "pk-b1-2", status: "active" },
          ],
        }),
      )
    );
    const row = await s.bots.loadRow("b1");
    assertEquals(row?.version, 2);
    assertEquals((await s.bots.search(q({ capability: "chat" }))).length, 0);
    assertEquals((await s.bots.search(q({ q: "first" }))).length, 0);
    assertEquals((await s.bots.search(q({ q: "renamed" }))).map((h) => h.botId), ["b1"]);
    const counts = await s.bots.counts();
    assertEquals(counts, {
      botsByStatus: { revoked: 1, suspended: 1 },
      keysByStatus: { active: 2, revoked: 1 },
      controllers: 0,
    });
    return counts;
  },

  async "attestations: insert once, find, list by role, count"(open) {
    const s = await open();
    const a = (id: string, issuer: string, subject: string) => ({
      id,
      issuer,
      subject,
      record: JSON.stringify({ id }),
      publishedAt: "2026-01-01T00:00:00.000Z",
    });
    assertEquals(await s.attestations.insert(a("a1", "x", "y")), true);
    assertEquals(await s.attestations.insert(a("a1", "x", "z")), false);
    assertEquals(await s.attestations.insert(a("a2", "y", "x")), true);
    assertEquals(await s.attestations.insert(a("a3", "x", "y")), true);
    assertEquals(await s.attestations.find("a1"), JSON.stringify({ id: "a1" }));
    assertEquals(await s.attestations.find("zz"), undefined);
    const bySubject = await s.attestations.list({
      botId: "y",
      role: "subject",
      afterSeq: 0,
      limit: 10,
    });
    assertEquals(bySubject.map((r) => r.seq), [1, 4]);
    const byIssuer = await s.attestations.list({
      botId: "x",
      role: "issuer",
      afterSeq: 1,
      limit: 1,
    });
    assertEquals(byIssuer, [{ seq: 4, record: JSON.stringify({ id: "a3" }) }]);
    assertEquals(await s.attestations.count(), 3);
    return { bySubject, byIssuer };
  },
};

// Varied search texts: upper case, LIKE metacharacters, backslashes, non-ASCII, ids that sort
// differently by bytes than by a linguistic collation.
function searchCorpus(): BotWrite[] {
  const words = [
    "Alpha",
    "beta",
    "GAMMA",
    "100%",
    "under_score",
    "back\\slash",
    "Ünïcödé",
    "日本語ボット",
    "emoji 🤖",
    "a_b%c\\d",
    "MiXeD CaSe",
    "naïve café",
  ];
  const statuses = ["active", "suspended", "revoked"];
  const caps = ["chat", "code", "search", "ops"];
  const out: BotWrite[] = [];
  for (let i = 0; i < 300; i++) {
    const prefix = ["bot", "Bot", "_bot", "böt", "ZED", "b-"][i % 6];
    const id = `${prefix}${String(i * 7919 % 1000).padStart(3, "0")}`;
    const name = `${words[i % words.length]} ${words[(i * 5) % words.length]}`;
    const desc = i % 4 === 0 ? `serves ${words[(i * 3) % words.length]} #${i}` : `plain ${i}`;
    out.push(bot(id, `${id}\n${name}\n${desc}`, {
      status: statuses[i % 3],
      capabilities: caps.filter((_, j) => (i >> j) & 1),
    }));
  }
  return out;
}

const SEARCHES: Partial<BotQuery>[] = [
  {},
  { limit: 7 },
  { q: "alpha" },
  { q: "ALPHA" },
  { q: "a" },
  { q: "al" },
  { q: "%" },
  { q: "100%" },
  { q: "_" },
  { q: "under_" },
  { q: "\\" },
  { q: "back\\s" },
  { q: "a_b%c\\d" },
  { q: "under_score" },
  { q: "back\\slash" },
  { q: "plain 12" },
  { q: "serves alpha #1" },
  { q: "bot000\nalpha" },
  { q: "ünï" },
  { q: "ÜNÏCÖDÉ" },
  { q: "日本" },
  { q: "日本語" },
  { q: "🤖" },
  { q: "café" },
  { q: "bot" },
  { q: "serves" },
  { q: "#12" },
  { q: "plain 1" },
  { q: "nothing-matches" },
  { q: "\nalpha" },
  { status: "active" },
  { status: "revoked", q: "gamma" },
  { capability: "chat" },
  { capability: "code", status: "suspended" },
  { capability: "ops", q: "be" },
  { after: "bot5" },
  { after: "Bot", limit: 5 },
  { after: "böt", q: "0" },
  { after: "b-", q: "e" },
  { capability: "search", after: "_bot500", limit: 4 },
  { status: "nope" },
];

// What a search must find, computed here: every matching id in byte order (the corpus ids have
// no characters outside the BMP, so UTF-16 order is UTF-8 byte order).
function reference(query: Partial<BotQuery>): string[] {
  const q = query.q?.toLowerCase();
  return searchCorpus().filter((b) =>
    (q == null || b.searchText.includes(q)) &&
    (query.status == null || b.status === query.status) &&
    (query.capability == null || b.capabilities.includes(query.capability)) &&
    (query.after == null || b.botId > query.after)
  ).map((b) => b.botId).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function loadCorpus(s: Store) {
  for (const b of searchCorpus()) await s.transaction((tx) => tx.bots.save(b));
}

// Every page of `query`, following `after` from each page's last id.
async function allPages(s: Store, query: Partial<BotQuery>): Promise<string[][]> {
  const base: BotQuery = { q: null, status: null, capability: null, after: null, limit: 50 };
  const pages: string[][] = [];
  let after = query.after ?? null;
  for (let i = 0; i < 100; i++) {
    const hits = await s.bots.search({ ...base, ...query, after });
    pages.push(hits.map((h) => h.botId));
    if (hits.length < (query.limit ?? 50) || hits.length === 0) break;
    after = hits[hits.length - 1].botId;
  }
  return pages;
}

for (const engine of ENGINES) {
  Deno.test(`store contract: ${engine}`, async (t) => {
    const { open, cleanup } = await opener(engine);
    try {
      for (const [name, run] of Object.entries(CASES)) {
        await t.step(name, async () => {
          await run(open);
        });
      }
      await t.step("search: q filters a lower-cased substring; ids in byte order", async () => {
        const s = await open();
        await loadCorpus(s);
        const ids = (await allPages(s, {})).flat();
        assertEquals(ids.length, 300);
        // Byte order: upper case before "_" before lower case before non-ASCII.
        assertEquals(ids, ids.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        assertEquals(ids[0].startsWith("Bot"), true);
        const pct = (await allPages(s, { q: "100%" })).flat();
        const expected = searchCorpus().filter((b) => b.searchText.includes("100%")).map((b) =>
          b.botId
        ).sort();
        assert(expected.length > 0);
        assertEquals(pct, expected);
        const under = (await allPages(s, { q: "_" })).flat();
        assertEquals(
          under,
          searchCorpus().filter((b) => b.searchText.includes("_")).map((b) => b.botId).sort(),
        );
      });
    } finally {
      await cleanup();
    }
  });
}

Deno.test("store contract: the engines return the same rows for the same inputs", async () => {
  const openers = await Promise.all(ENGINES.map((e) => opener(e)));
  try {
    const observed: Record<string, unknown[]> = {};
    for (const [name, run] of Object.entries(CASES)) {
      observed[name] = [];
      for (const o of openers) observed[name].push(await run(o.open));
      for (let i = 1; i < openers.length; i++) {
        assertEquals(observed[name][i], observed[name][0], `${name}: ${ENGINES[i]}`);
      }
    }
    const stores = await Promise.all(openers.map((o) => o.open()));
    await Promise.all(stores.map(loadCorpus));
    let nonEmpty = 0;
    for (const query of SEARCHES) {
      const results = await Promise.all(stores.map((s) => allPages(s, query)));
      for (let i = 1; i < stores.length; i++) {
        assertEquals(results[i], results[0], `${JSON.stringify(query)}: ${ENGINES[i]}`);
      }
      assertEquals(results[0].flat(), reference(query), JSON.stringify(query));
      if (results[0][0].length > 0) nonEmpty++;
    }
    // All but "nothing-matches" and status "nope" find something.
    assert(nonEmpty >= SEARCHES.length - 2, `only ${nonEmpty} searches found anything`);
  } finally {
    for (const o of openers) await o.cleanup();
  }
});
