/** A search's total and facets: exact under the count limit, capped above it, facets per filter. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { openSqliteStore } from "../../db/sqlite/store.ts";
import { openRegistry } from "./context.ts";
import { storeBot } from "./bots.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import { applyOperation } from "./record.ts";
import { COUNT_LIMIT, searchCounts } from "./search_counts.ts";

const CAPS = ["deploy", "review", "triage"];

function makeBot(i: number): Bot {
  const id = `count-${String(i).padStart(4, "0")}`;
  const bot = applyOperation(
    "create_bot",
    null,
    {
      bot_id: id,
      name: i % 10 === 0 ? `tenth bot ${i}` : `bot ${i}`,
      keys: [{ key_id: "k1", algorithm: "Ed25519", public_key: `key-${i}`, label: "main" }],
      capabilities: [CAPS[i % 3], ...(i % 5 === 0 ? ["rare"] : [])],
    },
    { botId: id },
    { now: "2026-01-01T00:00:00.000Z", seq: i, logHash: "", approvedBy: [] },
  );
  return i % 4 === 0 ? { ...bot, status: "revoked" } : bot;
}

Deno.test("search counts: exact totals and facets, capped past the limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-search-counts-" });
  const store = await openSqliteStore(`${dir}/signet.db`, { checkpointer: false });
  try {
    const rc = await openRegistry(store);
    const n = COUNT_LIMIT + 200;
    const bots = Array.from({ length: n }, (_, i) => makeBot(i));
    await store.transaction(async (tx) => {
      for (const b of bots) await storeBot(tx, b);
    });
    const count = (f: (b: Bot) => boolean) => bots.filter(f).length;

    // Unfiltered: more than the limit match, yet the total is exact (the registry's counts);
    // the facets are counted over the first COUNT_LIMIT.
    const all = await searchCounts(rc, {});
    assertEquals(all.total, n);
    assertEquals(all.total_exact, true);
    assertEquals(all.facets_exact, false);
    const first = bots.slice(0, COUNT_LIMIT);
    assertEquals(all.by_status.revoked, first.filter((b) => b.status === "revoked").length);

    // A broad term past the limit: "1,000+".
    const broad = await searchCounts(rc, { q: "bot" });
    assertEquals([broad.total, broad.total_exact], [COUNT_LIMIT, false]);

    // Under the limit: exact; each facet leaves its own filter out.
    const tenth = await searchCounts(rc, { q: "tenth", status: "active", capability: "rare" });
    const isTenth = (b: Bot) => b.name!.startsWith("tenth");
    assertEquals(tenth.total_exact, true);
    assertEquals(tenth.facets_exact, true);
    assertEquals(
      tenth.total,
      count((b) => isTenth(b) && b.status === "active" && b.capabilities!.includes("rare")),
    );
    assertEquals(tenth.by_status, {
      active: count((b) => isTenth(b) && b.capabilities!.includes("rare") && b.status === "active"),
      revoked: count((b) =>
        isTenth(b) && b.capabilities!.includes("rare") && b.status === "revoked"
      ),
    });
    const activeTenth = bots.filter((b) => isTenth(b) && b.status === "active");
    const caps = new Map<string, number>();
    for (const b of activeTenth) {
      for (const c of b.capabilities!) caps.set(c, (caps.get(c) ?? 0) + 1);
    }
    assertEquals(
      tenth.capabilities,
      [...caps].map(([capability, count]) => ({ capability, count }))
        .sort((a, b) => b.count - a.count || (a.capability < b.capability ? -1 : 1)),
    );
    const none = await searchCounts(rc, { q: "no such text" });
    assertEquals([none.total, none.total_exact, none.capabilities], [0, true, []]);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
