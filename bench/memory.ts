/**
 * Memory at rest (issue 29): a freshly started Signet with no data against a bare `Deno.serve`
 * started beside it, both left idle; and the bench's own Signet once its loads are over. RSS is
 * sampled from /proc after the server's idle release has run (server/memory.ts releases memory 5 s
 * after the last activity, then every 10 s until 65 s after it).
 */
import { startBareServer } from "./api_workloads.ts";
import { rssKb } from "./engine_workloads.ts";
import { type SignetServer, startSignet } from "./signet.ts";
import { median, procStatus, progress, sleep } from "./util.ts";

/** How long a server is left alone before its memory is sampled (ms): past two idle releases. */
export const SETTLE_MS = 20_000;

/** RSS samples (MB) of one process over a few seconds at rest. */
export interface RssSamples {
  /** Median of the samples, MB. */
  median: number;
  min: number;
  max: number;
}

/** Idle memory of Signet and of the bare endpoint, measured side by side. */
export interface IdleMemory {
  signet: RssSamples;
  bare: RssSamples;
  /** Threads of the idle Signet process (main, runtime and worker threads). */
  signetThreads: number;
  /** Anonymous part of each RSS (heaps, buffers), MB; the rest is mapped files (the binary). */
  signetAnonymous?: number;
  bareAnonymous?: number;
}

/** The bench's Signet after its loads, against the idle figure. */
export interface MemoryAfterLoad {
  afterLoad: RssSamples;
  /** Anonymous part (heaps, buffers), MB; the rest is mapped files (the binary, SQLite's file). */
  afterLoadAnonymous: number;
}

/** Samples the RSS of `pid` `count` times, `everyMs` apart. */
export async function sampleRss(pid: number, count = 10, everyMs = 500): Promise<RssSamples> {
  const mb: number[] = [];
  for (let i = 0; i < count; i++) {
    mb.push(rssKb(pid) / 1024);
    if (i + 1 < count) await sleep(everyMs);
  }
  return { median: median(mb), min: Math.min(...mb), max: Math.max(...mb) };
}

/**
 * Starts a Signet on an empty data dir and a bare Deno.serve (the same `deno` binary, run the same
 * way), leaves both alone for SETTLE_MS, and samples their RSS together.
 */
export async function measureIdleMemory(workDir: string, json: string): Promise<IdleMemory> {
  progress("memory at rest: an idle Signet with no data beside an idle bare Deno.serve");
  const dir = await Deno.makeTempDir({ dir: workDir, prefix: "idle-" });
  const bare = await startBareServer(json, dir);
  let signet: SignetServer | null = null;
  try {
    signet = await startSignet(`${dir}/signet-data`);
    await sleep(SETTLE_MS);
    const [s, b] = await Promise.all([sampleRss(signet.pid), sampleRss(bare.pid)]);
    return {
      signet: s,
      bare: b,
      signetThreads: procStatus(signet.pid, "Threads"),
      signetAnonymous: procStatus(signet.pid, "RssAnon") / 1024,
      bareAnonymous: procStatus(bare.pid, "RssAnon") / 1024,
    };
  } finally {
    await signet?.stop();
    await bare.stop();
  }
}

/** Leaves the bench's `server` alone for SETTLE_MS after its loads, then samples its RSS. */
export async function measureAfterLoad(server: SignetServer): Promise<MemoryAfterLoad> {
  progress("memory after the loads: the bench's Signet left idle");
  await sleep(SETTLE_MS);
  const afterLoad = await sampleRss(server.pid);
  return { afterLoad, afterLoadAnonymous: procStatus(server.pid, "RssAnon") / 1024 };
}

// `deno run -A bench/memory.ts`: the idle comparison alone, printed (writes no report).
if (import.meta.main) {
  const work = await Deno.makeTempDir({ prefix: "signet-bench-memory-" });
  try {
    const m = await measureIdleMemory(work, '{"ok":true}');
    console.log(JSON.stringify(m));
    console.log(`ratio ${(m.signet.median / m.bare.median).toFixed(2)}x`);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}
