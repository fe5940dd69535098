/** When the server gives memory back: never while work is under way or about to follow. */
import { assertEquals } from "../tests/helpers/assert.ts";
import { releaseSchedule } from "./memory.ts";

/** Feeds `due` checks every 500 ms from `fromMs` to `toMs`; returns the times it said release. */
function releasesBetween(
  due: ReturnType<typeof releaseSchedule>,
  fromMs: number,
  toMs: number,
  state: (t: number) => { activity: number; busy: boolean },
): number[] {
  const out: number[] = [];
  for (let t = fromMs; t <= toMs; t += 500) {
    const { activity, busy } = state(t);
    if (due(t, activity, busy)) out.push(t);
  }
  return out;
}

Deno.test("memory release: 5 s after requests, then every 10 s until 65 s", () => {
  const due = releaseSchedule(0, 0);
  // Requests until t = 2 s, then quiet.
  const times = releasesBetween(
    due,
    0,
    90_000,
    (t) => ({ activity: Math.min(t, 2_000), busy: false }),
  );
  assertEquals(times, [7_000, 17_000, 27_000, 37_000, 47_000, 57_000, 67_000]);
});

Deno.test("memory release: never while busy, 1 s after the last transfer ends", () => {
  const due = releaseSchedule(0, 0);
  const times = releasesBetween(due, 0, 10_000, (t) => ({ activity: 1, busy: t < 4_000 }));
  // Last seen busy at 3.5 s: the release comes at the first check a second after.
  assertEquals(times[0], 4_500);
});

Deno.test("memory release: a burst that follows a transfer at once postpones the release", () => {
  const due = releaseSchedule(0, 0);
  // A transfer until 4 s; requests start 0.5 s later and go on until 8 s.
  const times = releasesBetween(due, 0, 12_000, (t) => ({
    activity: t < 4_500 ? 1 : Math.min(t, 8_000),
    busy: t < 4_000,
  }));
  assertEquals(times[0], 9_000);
});
