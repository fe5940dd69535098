/**
 * The storage contract of the registry's resources (nonces, the audit log, bots and their search,
 * attestations): the same cases run against every engine, each on a fresh database, and the
 * engines must return the same rows and search pages for the same inputs
 * (tests/helpers/store_contract.ts). The hosting resources: db/store_contract_test.ts.
 */
import { assert } from "../tests/helpers/assert.ts";
import type { Store } from "./store.ts";
import type { BotQuery, BotSort, BotWrite, PlanMemory } from "./registry_bots.ts";
import {
  assertEquals,
  bot,
  type Case,
  contractSuite,
  delay,
  ENGINES,
  type Open,
} from "../tests/helpers/store_contract.ts";

const CASES: Record<string, Case> = {
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
    const seqs = (e: string[]) => e.map((x) => JSON.parse(x).seq);
    assertEquals(seqs(await s.log.readNewest({ before: null, limit: 3 })), [20, 19, 18]);
    assertEquals(seqs(await s.log.readNewest({ before: 3, limit: 5 })), [2, 1]);
    assertEquals(
      seqs(await s.log.readNewest({ before: null, limit: 100, botId: "bot1" })),
      of1.map((e) => e.seq).reverse(),
    );
    return { page, count: await s.log.count(15_000) };
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
    // A broad term with a capability is answered from the capability's rows (PostgreSQL: they
    // carry the bot's status and search text), so those follow every update too.
    const broad: PlanMemory = {
      broad: { get: () => true, set() {}, clear() {} },
      trigramDocs: { get: () => 100_000, set() {}, clear() {} },
    };
    const found = async (extra: Partial<BotQuery>) =>
      (await s.bots.search(q(extra), broad)).map((h) => h.botId);
    assertEquals(await found({ q: "renamed", capability: "code" }), ["b1"]);
    assertEquals(await found({ q: "first", capability: "code" }), []);
    assertEquals(await found({ q: "renamed", capability: "code", status: "active" }), []);
    assertEquals(await found({ q: "renamed", capability: "code", status: "revoked" }), ["b1"]);
    await s.transaction((tx) =>
      tx.bots.save(bot("b1", "B1 Again", { version: 3, capabilities: ["code"] }))
    );
    assertEquals(await found({ q: "again", capability: "code", status: "active" }), ["b1"]);
    assertEquals(await found({ q: "renamed", capability: "code" }), []);
    // The longest search text a record allows (a 1,000-character description of 3-byte UTF-8
    // characters, varied so that nothing compresses it), with many capabilities: stored, and
    // found through each of them.
    const cjk = Array.from(
      { length: 1000 },
      (_, i) => String.fromCharCode(0x4e00 + i * 7919 % 20000),
    )
      .join("");
    const many = Array.from({ length: 32 }, (_, i) => `cap-${i}`);
    await s.transaction((tx) =>
      tx.bots.save(bot("b3", `b3\nlong\n${cjk}`, { capabilities: many }))
    );
    assertEquals(await found({ q: cjk.slice(500, 504), capability: "cap-31" }), ["b3"]);
    assertEquals(await found({ q: cjk.slice(500, 504), capability: "code" }), []);
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
    // Every fifth bot has no name (every tenth an empty one): it sorts by its id.
    const shown = i % 5 !== 0 ? name : i % 10 === 0 ? "" : undefined;
    const day = (n: number) => String(1 + n % 28).padStart(2, "0");
    out.push(bot(id, `${id}\n${name}\n${desc}`, {
      status: statuses[i % 3],
      capabilities: caps.filter((_, j) => (i >> j) & 1),
      record: JSON.stringify({ bot_id: id, ...(shown === undefined ? {} : { name: shown }) }),
      // Many bots share a timestamp: bot_id breaks the ties.
      createdAt: `2026-01-${day(i * 13)}T00:00:00.000Z`,
      updatedAt: `2026-02-${day(i * 7)}T12:00:00.${String(i % 3).padStart(3, "0")}Z`,
    }));
  }
  return out;
}

/** The name sort's key of a bot: its name, or its id without one, ASCII letters lower-cased. */
function nameKey(b: BotWrite): string {
  const name = (JSON.parse(b.record) as { name?: string }).name || b.botId;
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The sort key of `b` in `sort` (not bot_id). */
function sortKey(b: BotWrite, sort: Exclude<BotSort, "bot_id">): string {
  const by = sort.replace(/^-/, "");
  return by === "name" ? nameKey(b) : by === "created" ? b.createdAt : b.updatedAt;
}

const encoder = new TextEncoder();
/** Byte order of the UTF-8 of `a` and `b`, as both engines compare keys. */
function byteOrder(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
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
  { capability: "ops", q: "alpha" },
  { capability: "search", q: "serves", status: "active" },
  { capability: "search", q: "100%", after: "bot1" },
  { capability: "ops", q: "ünï", limit: 3 },
  { after: "bot5" },
  { after: "Bot", limit: 5 },
  { after: "böt", q: "0" },
  { after: "b-", q: "e" },
  { capability: "search", after: "_bot500", limit: 4 },
  { status: "nope" },
  { sort: "bot_id", limit: 9 },
  { sort: "name" },
  { sort: "-name", limit: 7 },
  { sort: "created", limit: 11 },
  { sort: "-created", limit: 6 },
  { sort: "updated", limit: 13 },
  { sort: "-updated", limit: 5 },
  { sort: "name", q: "alpha", limit: 4 },
  { sort: "-created", q: "bot", limit: 8 },
  { sort: "-updated", q: "a" },
  { sort: "name", q: "nothing-matches" },
  { sort: "-name", capability: "chat", limit: 9 },
  { sort: "created", capability: "code", status: "suspended", limit: 3 },
  { sort: "-updated", status: "revoked", limit: 10 },
  { sort: "updated", status: "revoked", q: "gamma", limit: 2 },
  { sort: "-name", capability: "ops", q: "be" },
];

// What a search must find, computed here: every matching id in the query's order, keys and ids
// in byte order.
function reference(query: Partial<BotQuery>): string[] {
  const q = query.q?.toLowerCase();
  const found = searchCorpus().filter((b) =>
    (q == null || b.searchText.includes(q)) &&
    (query.status == null || b.status === query.status) &&
    (query.capability == null || b.capabilities.includes(query.capability)) &&
    (query.after == null || b.botId > query.after)
  );
  const sort = query.sort ?? "bot_id";
  if (sort === "bot_id") return found.map((b) => b.botId).sort(byteOrder);
  const sign = sort.startsWith("-") ? -1 : 1;
  return found.sort((a, b) =>
    sign * (byteOrder(sortKey(a, sort), sortKey(b, sort)) || byteOrder(a.botId, b.botId))
  ).map((b) => b.botId);
}

async function loadCorpus(s: Store) {
  for (const b of searchCorpus()) await s.transaction((tx) => tx.bots.save(b));
}

// Every page of `query`, following `after` from each page's last id.
async function allPages(
  s: Store,
  query: Partial<BotQuery>,
  memory?: PlanMemory,
): Promise<string[][]> {
  const base: BotQuery = { q: null, status: null, capability: null, after: null, limit: 50 };
  const pages: string[][] = [];
  let after = query.after ?? null;
  let afterKey: string | undefined;
  for (let i = 0; i < 100; i++) {
    const hits = await s.bots.search({ ...base, ...query, after, afterKey }, memory);
    pages.push(hits.map((h) => h.botId));
    if (hits.length < (query.limit ?? 50) || hits.length === 0) break;
    const sorted = query.sort !== undefined && query.sort !== "bot_id";
    const last = hits[hits.length - 1];
    // A sort other than bot_id gives each hit's key, the one the corpus says it has.
    assertEquals(
      last.key,
      sorted ? sortKey(corpusBot(last.botId), query.sort as never) : undefined,
    );
    after = last.botId;
    afterKey = last.key;
  }
  return pages;
}

function corpusBot(id: string): BotWrite {
  return searchCorpus().find((b) => b.botId === id)!;
}

contractSuite("registry store contract", CASES, {
  async steps(open: Open, t: Deno.TestContext) {
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
    await t.step("search: the same pages when every filter is taken as broad", async () => {
      // Filters matching few bots are read and sorted; broad ones walk the order's index. A
      // memory that calls every term broad makes the walk read this small corpus too.
      const s = await open();
      await loadCorpus(s);
      const always = { get: () => true as const, set() {}, clear() {} };
      const memory: PlanMemory = {
        broad: always,
        trigramDocs: { get: () => 100_000, set() {}, clear() {} },
      };
      for (const query of SEARCHES) {
        assertEquals(
          (await allPages(s, query, memory)).flat(),
          reference(query),
          JSON.stringify(query),
        );
      }
    });
    await t.step("search counts: matches and capability counts agree with the corpus", async () => {
      const s = await open();
      await loadCorpus(s);
      const base: BotQuery = { q: null, status: null, capability: null, after: null, limit: 1000 };
      for (const query of SEARCHES) {
        const found = await s.bots.matches({ ...base, ...query });
        const expected = reference(query).slice(0, query.limit ?? 1000);
        assertEquals(found.map((m) => m.botId), expected, JSON.stringify(query));
        const status = new Map(searchCorpus().map((b) => [b.botId, b.status]));
        for (const m of found) assertEquals(m.status, status.get(m.botId));
        const ids = expected.slice(0, 40);
        const counts = new Map<string, number>();
        for (const b of searchCorpus()) {
          if (!ids.includes(b.botId)) continue;
          for (const c of b.capabilities) counts.set(c, (counts.get(c) ?? 0) + 1);
        }
        const want = [...counts].map(([capability, count]) => ({ capability, count }))
          .sort((a, b) => b.count - a.count || (a.capability < b.capability ? -1 : 1))
          .slice(0, 3);
        assertEquals(await s.bots.capabilityCounts(ids, 3), want, JSON.stringify(query));
      }
      assertEquals(await s.bots.capabilityCounts([], 5), []);
    });
    await t.step("controlled: the bots naming a controller, in id order, paged", async () => {
      const s = await open();
      for (const id of ["z9", "a1", "B2", "m5", "_x"]) {
        await s.transaction((tx) =>
          tx.bots.save(bot(id, id, { controllers: id === "m5" ? ["other"] : ["boss", "other"] }))
        );
      }
      const ids = async (after: string | null, limit: number) =>
        (await s.bots.controlled("boss", after, limit)).map((h) => h.botId);
      assertEquals(await ids(null, 10), ["B2", "_x", "a1", "z9"]);
      assertEquals(await ids(null, 2), ["B2", "_x"]);
      assertEquals(await ids("_x", 2), ["a1", "z9"]);
      assertEquals(await ids("z9", 2), []);
      assertEquals((await s.bots.controlled("boss", null, 1))[0].record, bot("B2", "B2").record);
      assertEquals(await s.bots.controlled("nobody", null, 5), []);
    });
  },
  async agree(openers) {
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
    // All but the two "nothing-matches" and status "nope" find something.
    assert(nonEmpty >= SEARCHES.length - 3, `only ${nonEmpty} searches found anything`);
  },
});
