/** Registry figures are kept while the log head stays put and recomputed once it moves. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { openSqliteStore } from "../../db/sqlite/store.ts";
import { openRegistry } from "./context.ts";
import { storeBot } from "./bots.ts";
import { applyOperation } from "./record.ts";
import { registryStats } from "./stats.ts";
import { searchCounts } from "./search_counts.ts";

function bot(id: string) {
  return applyOperation(
    "create_bot",
    null,
    {
      bot_id: id,
      keys: [{ key_id: "k1", algorithm: "Ed25519", public_key: `key-${id}`, label: "main" }],
    },
    { botId: id },
    { now: "2026-01-01T00:00:00.000Z", seq: 1, logHash: "", approvedBy: [] },
  );
}

Deno.test("head cache: stats and counts kept until the log head moves", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-head-cache-" });
  const store = await openSqliteStore(`${dir}/signet.db`, { checkpointer: false });
  try {
    const rc = await openRegistry(store);
    assertEquals((await registryStats(rc)).bots_total, 0);
    assertEquals((await searchCounts(rc, {})).total, 0);
    // A row written outside the log (as a restore would): the kept figures stand.
    await store.transaction((tx) => storeBot(tx, bot("quiet")));
    assertEquals((await registryStats(rc)).bots_total, 0);
    assertEquals((await searchCounts(rc, {})).total, 0);
    // An accepted write appends to the log: the head moves, the figures are counted again.
    await store.transaction(async (tx) => {
      await tx.log.lock();
      await storeBot(tx, bot("loud"));
      await tx.log.append({
        seq: 1,
        botId: "loud",
        operation: "create_bot",
        entry: "{}",
        hash: "h1",
        createdMs: Date.now(),
      });
    });
    const stats = await registryStats(rc);
    assertEquals([stats.bots_total, stats.log_head], [2, { seq: 1, hash: "h1" }]);
    assertEquals((await searchCounts(rc, {})).total, 2);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
