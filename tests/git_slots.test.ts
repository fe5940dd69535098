/** GitSlots: at most `limit` git processes at once; the rest wait their turn in order. */
import { assertEquals } from "./helpers/assert.ts";
import { GitSlots } from "../server/domain/git.ts";

Deno.test("GitSlots caps concurrency and hands slots over in order", async () => {
  const slots = new GitSlots(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(Array.from({ length: 7 }, async (_, i) => {
    const release = await slots.acquire();
    running++;
    peak = Math.max(peak, running);
    order.push(i);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    release();
    release(); // a second call must not free a second slot
  }));
  assertEquals(peak, 2);
  assertEquals(order, [0, 1, 2, 3, 4, 5, 6]);
  assertEquals(slots.queued, 0);
  // All slots are free again: two acquire at once without waiting.
  const a = await slots.acquire();
  const b = await slots.acquire();
  assertEquals(slots.queued, 0);
  a();
  b();
});
