/** SizedCache: within its budget, least recently used out first, nothing too large, expiry. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { SizedCache } from "./sized_cache.ts";

Deno.test("SizedCache: least recently used out first, within the budget", () => {
  const cache = new SizedCache<string>(300);
  cache.set("a", "A", 100);
  cache.set("b", "B", 100);
  cache.set("c", "C", 100);
  assertEquals(cache.get("a"), "A"); // now the most recent: b goes first
  cache.set("d", "D", 100);
  assertEquals([cache.get("b"), cache.get("c"), cache.get("a"), cache.get("d")], [
    undefined,
    "C",
    "A",
    "D",
  ]);
  assertEquals(cache.bytes, 300);
  cache.set("a", "A2", 50); // replaced, not counted twice
  assertEquals([cache.get("a"), cache.bytes], ["A2", 250]);
});

Deno.test("SizedCache: a value over its entry limit is not kept; an expired one is gone", () => {
  const cache = new SizedCache<string>(1000, 100);
  cache.set("big", "x", 101);
  assertEquals([cache.get("big"), cache.bytes], [undefined, 0]);
  cache.set("old", "x", 10, Date.now() - 1);
  assertEquals([cache.get("old"), cache.bytes], [undefined, 0]);
  cache.set("new", "y", 10, Date.now() + 60_000);
  assertEquals(cache.get("new"), "y");
});
