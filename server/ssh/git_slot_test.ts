/**
 * GitSlots: at most `limit` git processes at once; the rest wait their turn in order. One key (a
 * client address, a user) holds at most `perKey` of them; others pass it while it waits.
 */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { GitSlots } from "../domain/git.ts";
import { AdvertisementEnd, SessionSlot } from "./git_slot.ts";

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

Deno.test("GitSlots caps each key; a capped key's waiters let other keys pass", async () => {
  const slots = new GitSlots(3, 2);
  const got = new Map<string, () => void>();
  const take = (name: string, keys: string[]) =>
    slots.acquire(keys).then((release) => void got.set(name, release));
  await take("a1", ["ip:a", "user:1"]);
  await take("a2", ["ip:a"]);
  const waiting = take("a3", ["ip:a"]);
  // user:1 is under its cap, ip:a is not: the third slot stays free for others.
  take("b", ["ip:b", "user:1"]);
  await Promise.resolve();
  assertEquals(slots.queued, 1);
  assertEquals(slots.heldBy("ip:a"), 2);
  assertEquals(slots.heldBy("user:1"), 2);
  assert(got.has("b"), "another address was kept waiting behind a capped one");
  // All three slots are taken: a fourth client waits, behind ip:a's waiter.
  take("c", ["ip:c"]);
  await Promise.resolve();
  assertEquals(slots.queued, 2);
  // b's slot frees: ip:a is still at its cap, so ip:c takes it.
  got.get("b")!();
  await Promise.resolve();
  assert(got.has("c"), "the free slot went to no one");
  assert(!got.has("a3"), "ip:a went over its cap");
  // One of ip:a's frees: its waiter takes it.
  got.get("a1")!();
  await waiting;
  assertEquals(slots.heldBy("user:1"), 0);
  assertEquals(slots.queued, 0);
  for (const name of ["a2", "a3", "c"]) got.get(name)!();
  assertEquals(slots.heldBy("ip:a"), 0);
});

Deno.test("an SSH session's slot is given back after silence; long silence ends it", async () => {
  const slots = new GitSlots(1);
  let idle = 0;
  const slot = new SessionSlot(slots, ["user:1"], {
    parkAfterMs: 200,
    idleTimeoutMs: 600,
    onIdle: () => idle++,
  });
  await slot.take();
  assert(slot.held);
  // Activity keeps it.
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 50));
    slot.activity();
  }
  assert(slot.held, "an active session lost its slot");
  // Silence: the slot goes back (another can take it), then the session is ended.
  const other = await slots.acquire(["user:2"]);
  assert(!slot.held);
  other();
  const deadline = Date.now() + 5_000;
  while (idle === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assertEquals(idle, 1);
  await slot.take(); // stopped: takes nothing
  assert(!slot.held);
  assertEquals(slots.queued, 0);
});

Deno.test("the end of git's advertisement is its first flush-pkt, across chunks", () => {
  const enc = new TextEncoder();
  const advert = enc.encode("000eversion 2\n0015agent=git/2.39.5\n0013ls-refs=unborn\n0000");
  for (let cut = 1; cut < advert.length; cut += 7) {
    const end = new AdvertisementEnd();
    assertEquals(end.push(advert.subarray(0, cut)), false, `cut at ${cut}`);
    assertEquals(end.push(advert.subarray(cut)), true, `cut at ${cut}`);
  }
  // A pkt-line whose payload holds "0000" does not end it; garbage stops the search for good.
  const tricky = new AdvertisementEnd();
  assertEquals(tricky.push(enc.encode("000c00000000")), false);
  assertEquals(tricky.push(enc.encode("0000")), true);
  const lost = new AdvertisementEnd();
  assertEquals(lost.push(enc.encode("fatal: no\n0000")), false);
});
