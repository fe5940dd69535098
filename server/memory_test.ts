/**
 * When the server gives memory back: never while work is under way or about to follow; and the
 * executable's code pages given back while the process goes on running the same code.
 */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { codeMappings, dropCodePages, releaseSchedule } from "./memory.ts";

/** Feeds `due` checks every 500 ms from `fromMs` to `toMs`; returns the times it said release. */
function releasesBetween(
  due: ReturnType<typeof releaseSchedule>,
  fromMs: number,
  toMs: number,
  state: (t: number) => { activity: number; busy: boolean; chores?: number },
): number[] {
  const out: number[] = [];
  for (let t = fromMs; t <= toMs; t += 500) {
    const { activity, busy, chores } = state(t);
    if (due(t, activity, busy, chores)) out.push(t);
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

Deno.test("memory release: housekeeping earns one release 5 s after it, unless one came since", () => {
  const due = releaseSchedule(0, 0);
  // Requests until 2 s; maintenance runs at 60 s (late in the requests' series) and at 120 s.
  const times = releasesBetween(due, 0, 150_000, (t) => ({
    activity: Math.min(t, 2_000),
    busy: false,
    chores: t < 60_000 ? 0 : t < 120_000 ? 1 : 2,
  }));
  // 65 s for the run at 60 s; the series' release due at 67 s then waits its 10 s, past its end.
  assertEquals(times, [7_000, 17_000, 27_000, 37_000, 47_000, 57_000, 65_000, 125_000]);
});

Deno.test("memory release: housekeeping amid the requests' releases adds none to the series", () => {
  const due = releaseSchedule(0, 0);
  // Maintenance at 10 s, then requests again from 20 to 22 s.
  const times = releasesBetween(due, 0, 100_000, (t) => ({
    activity: Math.min(t, 2_000) + (t < 20_000 ? 0 : Math.min(t - 20_000, 2_000)),
    busy: false,
    chores: t < 10_000 ? 0 : 1,
  }));
  // The run at 10 s takes the release due at 17 s; new requests at 20 s start a series of their own.
  assertEquals(times, [7_000, 15_000, 27_000, 37_000, 47_000, 57_000, 67_000, 77_000, 87_000]);
});

/** This process's resident pages of mapped files, KiB (/proc/self/status). */
function rssFileKb(): number {
  return Number(/RssFile:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))![1]);
}

Deno.test("code pages at rest: dropped from the process, and run again as before", async () => {
  const before = rssFileKb();
  const advised = dropCodePages();
  const after = rssFileKb();
  assert(advised > 10 * 1024 * 1024, `advised only ${advised} bytes of the executable's code`);
  // The runtime's code was resident (it ran this test); the drop gave most of it back.
  assert(after < before - 4 * 1024, `RssFile ${before} → ${after} KiB`);
  // Code runs on as before: the compiler, WebCrypto, a subprocess, the file system.
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("abc"));
  assertEquals(
    [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16),
    "ba7816bf8f01cfea",
  );
  assertEquals(new Function("a", "b", "return a * b")(6, 7), 42);
  const out = await new Deno.Command("git", { args: ["--version"], stdout: "piped" }).output();
  assert(new TextDecoder().decode(out.stdout).startsWith("git version"));
  assert(rssFileKb() < before, "the pages came back all at once");
});

Deno.test("code pages at rest: only the executable's r-xp mappings, each with its written KiB", () => {
  const exe = "/usr/local/bin/deno";
  const mapping = (range: string, perms: string, path: string, anonymousKb: number) =>
    `${range} ${perms} 00001000 fe:00 1234                       ${path}\n` +
    `Size:                100 kB\nRss:                 40 kB\nAnonymous:           ${anonymousKb} kB\n` +
    `AnonHugePages:         0 kB\nVmFlags: rd ex mr mw me\n`;
  const smaps = mapping("1000-5000", "r--p", exe, 0) +
    mapping("5000-9000", "r-xp", exe, 0) +
    mapping("9000-a000", "r-xp", exe, 8) + // a breakpoint's private copy
    mapping("a000-b000", "rw-p", exe, 4) +
    mapping("b000-c000", "r-xp", `${exe} (deleted)`, 0) +
    mapping("c000-d000", "r-xp", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0);
  assertEquals(codeMappings(smaps, exe), [
    { start: 0x5000n, end: 0x9000n, anonymousKb: 0 },
    { start: 0x9000n, end: 0xa000n, anonymousKb: 8 },
  ]);
});
