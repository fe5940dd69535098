/** Output pacing on SSH channels: the limit from the round-trip time, and the waiting itself. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { ConsumptionPacer, PACE_BASE_BYTES, PACE_FULL_WINDOW_RTT_MS, paceLimit } from "./io.ts";

const WINDOW = 2 * 1024 * 1024;

Deno.test("paceLimit: the base on loopback, more with delay, the whole window when far or unknown", () => {
  assertEquals(paceLimit(WINDOW, 0), PACE_BASE_BYTES);
  const near = paceLimit(WINDOW, 2);
  assertEquals(near > PACE_BASE_BYTES && near < 400 * 1024, true);
  assertEquals(paceLimit(WINDOW, PACE_FULL_WINDOW_RTT_MS / 2) > near, true);
  assertEquals(paceLimit(WINDOW, PACE_FULL_WINDOW_RTT_MS), WINDOW);
  assertEquals(paceLimit(WINDOW, 500), WINDOW);
  assertEquals(paceLimit(WINDOW, null), WINDOW);
  // A window smaller than the base is the limit itself.
  assertEquals(paceLimit(64 * 1024, 0), 64 * 1024);
});

/** A stand-in for ssh2's channel state: `outgoing.window` is what the pacer follows. */
function fakeChannel() {
  return { outgoing: { window: WINDOW } };
}

Deno.test("ConsumptionPacer: waits once the client holds the limit, goes on as it consumes", async () => {
  const channel = fakeChannel();
  const pacer = ConsumptionPacer.attach(channel, 0)!;
  assertEquals(pacer.limit, PACE_BASE_BYTES);
  assertEquals(await pacer.ready(), true);
  // ssh2 sends: the window shrinks by what went out.
  channel.outgoing.window -= PACE_BASE_BYTES;
  let released = false;
  const waiting = pacer.ready().then(() => (released = true));
  await new Promise((r) => setTimeout(r, 10));
  assertEquals(released, false);
  // The client consumed 96 KiB and adjusted the window: below the limit again.
  channel.outgoing.window += 96 * 1024;
  await waiting;
  assertEquals(released, true);
  assertEquals(pacer.limit, PACE_BASE_BYTES); // it still held most: no growth
});

Deno.test("ConsumptionPacer: the limit doubles when the client drained nearly all of it", async () => {
  const channel = fakeChannel();
  const pacer = ConsumptionPacer.attach(channel, 0)!;
  channel.outgoing.window -= PACE_BASE_BYTES;
  const waiting = pacer.ready();
  channel.outgoing.window += PACE_BASE_BYTES; // one adjustment for everything
  await waiting;
  assertEquals(pacer.limit, 2 * PACE_BASE_BYTES);
});

Deno.test("ConsumptionPacer: nothing to follow on a channel without ssh2's window", () => {
  assertEquals(ConsumptionPacer.attach({}, 1), null);
  assertEquals(ConsumptionPacer.attach({ outgoing: {} }, 1), null);
});
