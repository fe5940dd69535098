import { assertEquals } from "../tests/helpers/assert.ts";
import { followRegistrySize, SIZE_CHECK_MS, sizeCheckDue } from "./search_plan.ts";
import type { Memo, PlanMemory } from "./registry_bots.ts";

function memo<V>(): Memo<V> & { map: Map<string, V> } {
  const map = new Map<string, V>();
  return {
    map,
    get: (k) => map.get(k),
    set: (k, v) => void map.set(k, v),
    clear: () => map.clear(),
  };
}

Deno.test("search plan hints: dropped when the registry grew or shrank by half, kept otherwise", () => {
  const broad = memo<true>();
  const trigramDocs = memo<number>();
  const memory: PlanMemory = { broad, trigramDocs };
  assertEquals(sizeCheckDue(memory, 0), true);
  followRegistrySize(memory, 100_000, 0);
  broad.set("alpha", true);
  trigramDocs.set("012", 400);
  assertEquals(sizeCheckDue(memory, SIZE_CHECK_MS - 1), false);
  assertEquals(sizeCheckDue(memory, SIZE_CHECK_MS), true);
  followRegistrySize(memory, 140_000, SIZE_CHECK_MS); // +40%: the hints still fit
  assertEquals([broad.map.size, trigramDocs.map.size], [1, 1]);
  assertEquals(memory.size, { rows: 100_000, checkedAt: SIZE_CHECK_MS });
  followRegistrySize(memory, 1_000_000, 2 * SIZE_CHECK_MS); // a bulk import: start again
  assertEquals([broad.map.size, trigramDocs.map.size], [0, 0]);
  assertEquals(memory.size, { rows: 1_000_000, checkedAt: 2 * SIZE_CHECK_MS });
  trigramDocs.set("012", 4_000);
  followRegistrySize(memory, 600_000, 3 * SIZE_CHECK_MS); // shrank by more than a third
  assertEquals(trigramDocs.map.size, 0);
});
