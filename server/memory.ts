/**
 * Giving memory back once the server goes idle after a burst of traffic, for what V8 and glibc
 * keep on their own: a worker's V8 heap is not shrunk when it goes idle, dead buffers wait for a
 * collection that V8 starts only after ~64 MB more of them, and glibc keeps freed memory in every
 * thread's malloc arena until asked to trim; and the executable's code pages, which stay mapped
 * after the burst that ran them. Measured in docs/decisions/performance-and-bench.md ("Idle memory
 * release", "Code pages at rest").
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** The `gc` of a `node:vm` context, for the calling thread's heap (what it does under Deno:
 * collectGarbage); null where it cannot be had. */
function exposeGc(): (() => void) | null {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    return typeof gc === "function" ? gc : null;
  } catch {
    return null;
  }
}

const LIBC_SYMBOLS = {
  // Off the calling thread (Deno runs a nonblocking symbol on its blocking pool): on a loaded
  // machine one trim took seconds, and the event loop must not wait for it.
  malloc_trim: { parameters: ["usize"], result: "i32", nonblocking: true },
  mallopt: { parameters: ["i32", "i32"], result: "i32" },
  madvise: { parameters: ["usize", "usize", "i32"], result: "i32" },
} as const;

let libcSymbols: Deno.DynamicLibrary<typeof LIBC_SYMBOLS>["symbols"] | null | undefined;
/** glibc's allocator functions Signet calls, opened once; null without glibc or FFI permission. */
function libc(): typeof libcSymbols {
  if (libcSymbols === undefined) {
    try {
      libcSymbols = Deno.dlopen("libc.so.6", LIBC_SYMBOLS).symbols;
    } catch {
      libcSymbols = null;
    }
  }
  return libcSymbols;
}

/**
 * glibc's malloc_trim(0) (returns every arena's free pages), run on another thread, one at a time;
 * null where libc() is.
 */
function openMallocTrim(): (() => void) | null {
  const symbols = libc();
  if (!symbols) return null;
  let running = false;
  return () => {
    if (running) return;
    running = true;
    symbols.malloc_trim(0n).finally(() => running = false);
  };
}

/** glibc's M_MMAP_THRESHOLD (malloc.h) and the value Signet fixes it at. */
const M_MMAP_THRESHOLD = -3;
const MMAP_THRESHOLD_BYTES = 64 * 1024;

/**
 * Fixes glibc's mmap threshold at 64 KiB, so the 64 KiB buffers every transfer passes through
 * (pipe and socket reads, request body chunks) get mappings of their own, unmapped when freed. By
 * default the threshold grows to the largest block freed so far (up to 32 MiB); after that those
 * buffers come from the malloc arenas, which fragment and keep their high-water mark. Measured in
 * docs/decisions/performance-and-bench.md ("Fixed mmap threshold"). False without glibc or FFI permission.
 */
export function fixMmapThreshold(): boolean {
  return libc()?.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1;
}

let gc: (() => void) | null | undefined;
/**
 * Collects the calling thread's garbage now, all of it: the `gc` a `node:vm` context gives under
 * Deno is V8's low-memory notification (two full mark-compacts that also shrink the heap; it takes
 * no options, so there is no minor collection to ask for). It pauses the thread 20–95 ms for the
 * main thread's heap on a quiet machine and hundreds of ms on a loaded one: call it when idle.
 */
export function collectGarbage(): void {
  if (gc === undefined) gc = exposeGc();
  gc?.();
}

/**
 * When memory is released: once the server has been quiet (no new activity, nothing busy) this
 * long, then every RELEASE_EVERY_MS while still quiet, until RELEASE_UNTIL_MS (the main thread's V8
 * frees its part 5–25 s after traffic). After a transfer or SSH session, a shorter quiet is enough:
 * it left tens of MB behind, and a burst of clones is over once nothing starts for a second.
 */
const RELEASE_AFTER_MS = 5_000;
const RELEASE_AFTER_TRANSFER_MS = 1_000;
const RELEASE_EVERY_MS = 10_000;
const RELEASE_UNTIL_MS = 65_000;
/** How often the watch looks. */
const CHECK_EVERY_MS = 500;
/**
 * Buffers held by JavaScript objects above which the main thread collects, busy or not: a backstop
 * far above what V8's own collections let transfers pile up (at most 90 MB in a burst of 50
 * parallel SSH clones and 50 MB pushes), since that collection is a full one (collectGarbage).
 */
const DEAD_BUFFERS_BYTES = 128 * 1024 * 1024;

/** What the idle watch asks the server. */
export interface IdleWatch {
  /** A number that changes whenever work was done (requests handled, sessions opened, …). */
  activity(): number;
  /** True while work is under way (a transfer, an open SSH session). */
  busy(): boolean;
  /**
   * A number that changes whenever housekeeping ran on a timer (maintenance): on a quiet server it
   * earns one release of what it touched, not a series.
   */
  chores(): number;
  /** Releases what the other threads (the guards' heaps) and the database connections hold. */
  releaseOthers(): void;
}

/**
 * The release schedule as a pure decision: fed each check's time, activity count, busy flag and
 * chores count, it answers whether to release memory now. Never while busy or right after
 * activity: a collection (and, before it ran on its own thread, a trim) stalls the event loop,
 * which on a machine loaded by a burst of clones took seconds (docs/decisions/performance-and-bench.md,
 * "Idle memory release"). Housekeeping on a quiet server (a maintenance run once a minute) brings
 * back code pages and heap that the last release gave back, and would keep them for good once the
 * series after the last activity is over: it gets one release of its own, as quiet as the others
 * ("Housekeeping gives back what it touched").
 */
export function releaseSchedule(
  startMs: number,
  startActivity: number,
  startChores = 0,
): (nowMs: number, activity: number, busy: boolean, chores?: number) => boolean {
  let lastActivity = startActivity;
  let activeAt = startMs;
  let releasedAt = 0;
  let transferEnded = false;
  let wasBusy = false;
  let lastChores = startChores;
  let choresAt: number | null = null;
  return (now, activity, busy, chores = lastChores) => {
    if (wasBusy && !busy) transferEnded = true;
    wasBusy = busy;
    if (chores !== lastChores) {
      lastChores = chores;
      choresAt = now;
    }
    if (activity !== lastActivity || busy) {
      lastActivity = activity;
      activeAt = now;
      return false;
    }
    const idle = now - activeAt;
    if (choresAt !== null && releasedAt >= choresAt) choresAt = null; // a release came after it
    if (choresAt !== null && now - choresAt >= RELEASE_AFTER_MS && idle >= RELEASE_AFTER_MS) {
      choresAt = null;
      releasedAt = now;
      return true;
    }
    const quietNeeded = transferEnded ? RELEASE_AFTER_TRANSFER_MS : RELEASE_AFTER_MS;
    if (idle < quietNeeded || idle > RELEASE_UNTIL_MS) return false;
    if (releasedAt > activeAt && now - releasedAt < RELEASE_EVERY_MS) return false;
    releasedAt = now;
    transferEnded = false;
    return true;
  };
}

/** Releases memory on the schedule above, checking twice a second; returns a stop function. */
export function releaseMemoryWhenIdle(watch: IdleWatch): () => void {
  const trim = openMallocTrim();
  const due = releaseSchedule(Date.now(), watch.activity(), watch.chores());
  const timer = setInterval(() => {
    // Dead transfer buffers are V8's to collect as they pile up; a full collection here, while
    // transfers stream, is only for a pile-up far beyond what it allows (DEAD_BUFFERS_BYTES).
    if (Deno.memoryUsage().external > DEAD_BUFFERS_BYTES) collectGarbage();
    if (!due(Date.now(), watch.activity(), watch.busy(), watch.chores())) return;
    watch.releaseOthers();
    // Transfers leave tens of MB of dead buffers on this thread too: V8 collects them only once
    // about 64 MB more are allocated, so collect here, before trimming.
    collectGarbage();
    trim?.();
    dropCodePages();
  }, CHECK_EVERY_MS);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}

/** Linux's MADV_DONTNEED (asm-generic/mman-common.h). */
const MADV_DONTNEED = 4;

/**
 * Unmaps the resident pages of the executable's code: its `r-xp` mappings of its own file, which
 * nothing writes, so each page comes back from the file (the kernel's page cache) the next time it
 * runs, as after any reclaim. A mapping holding any privately written page (`Anonymous` above 0 in
 * smaps: a debugger's breakpoint, a uprobe) is left alone, as are writable or relocated mappings
 * (dropping a written private page would lose what was written). Returns the bytes of the mappings
 * advised, 0 without Linux's /proc, glibc or FFI permission.
 */
export function dropCodePages(): number {
  const symbols = libc();
  if (!symbols) return 0;
  let exe: string;
  let smaps: string;
  try {
    exe = Deno.execPath();
    smaps = Deno.readTextFileSync("/proc/self/smaps");
  } catch {
    return 0;
  }
  let advised = 0;
  for (const { start, end, anonymousKb } of codeMappings(smaps, exe)) {
    if (anonymousKb !== 0) continue;
    if (symbols.madvise(start, end - start, MADV_DONTNEED) === 0) advised += Number(end - start);
  }
  return advised;
}

/** A code mapping: its address range and its privately written (Anonymous) KiB. */
export interface CodeMapping {
  start: bigint;
  end: bigint;
  anonymousKb: number;
}

/** The `r-xp` mappings of file `path` in smaps text. */
export function codeMappings(smaps: string, path: string): CodeMapping[] {
  const out: CodeMapping[] = [];
  let current: CodeMapping | null = null;
  for (const line of smaps.split("\n")) {
    // A mapping's header: start-end perms offset dev inode path.
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) [0-9a-f]+ \S+ \d+ *(.*)$/.exec(line);
    if (head) {
      current = head[3] === "r-xp" && head[4] === path
        ? { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), anonymousKb: -1 }
        : null;
      if (current) out.push(current);
      continue;
    }
    const anonymous = /^Anonymous:\s+(\d+) kB$/.exec(line);
    if (anonymous && current) current.anonymousKb = Number(anonymous[1]);
  }
  return out;
}
