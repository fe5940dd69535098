/** Git workloads, run interleaved over every transport so noise hits all of them alike. */
import { cmd, cmdOk, gitClientEnv, progress, randomBytes } from "./util.ts";
import type { RepoName, Transport } from "./transport.ts";
import { type MemoryPeak, sampleMemory } from "./baselines/process.ts";
import { childrenCpuMs } from "./client_cpu.ts";

/** Where clients put their working copies, and the git identity they use. */
export interface ClientContext {
  /** Scratch directory for clones; each transport gets a sub-directory. */
  dir: string;
  home: string;
  /** Bytes of the file committed by the big-push workload. */
  bigPushBytes: number;
}

/** Samples of one workload on one transport, in milliseconds. */
export interface GitSample {
  workload: string;
  transport: string;
  samples: number[];
  /** Client-side CPU of each sample (git and its ssh/http helper; the server excluded). */
  clientCpu: number[];
}

/** One timed git command: wall time and the CPU its processes used, in milliseconds. */
export interface Timing {
  ms: number;
  cpuMs: number;
}

/** One sequential workload: an untimed `prepare`, then a timed `measure`. */
interface Workload {
  id: string;
  /** The git command line as the table shows it. */
  command: string;
  /** The git service its measured operation runs on the server. */
  service: "git-upload-pack" | "git-receive-pack";
  setup?(t: Transport, c: ClientContext): Promise<void>;
  prepare?(t: Transport, c: ClientContext, run: number): Promise<void>;
  measure(t: Transport, c: ClientContext, run: number): Promise<Timing>;
  /**
   * A fixed-cost operation (tens of ms, most of it set-up): it runs FIXED_COST_RUNS_FACTOR times
   * the runs, since the machine's jitter is a larger share of it and its goals sit within 5%.
   */
  fixedCost?: true;
}

/** How many times the usual runs a fixed-cost workload runs (each run costs well under 1 s). */
export const FIXED_COST_RUNS_FACTOR = 3;

function envFor(t: Transport, c: ClientContext): Record<string, string> {
  return { ...gitClientEnv(c.home), ...t.env };
}

/** Runs `git <t.gitArgs> args…` for transport `t`, throwing on failure; returns its timing. */
export async function git(
  t: Transport,
  c: ClientContext,
  args: string[],
  cwd?: string,
): Promise<Timing> {
  const cpu0 = childrenCpuMs();
  const r = await cmd("git", [...t.gitArgs, ...args], { env: envFor(t, c), cwd });
  const cpuMs = childrenCpuMs() - cpu0;
  if (r.code !== 0) {
    throw new Error(
      `[${t.id}] git ${args.join(" ")} failed (${r.code}):\n${r.stderr.slice(-2000)}`,
    );
  }
  return { ms: r.ms, cpuMs };
}

function clientDir(t: Transport, c: ClientContext, name: string): string {
  return `${c.dir}/${t.id}/${name}`;
}

async function rmrf(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch(() => {});
}

function cloneWorkload(id: string, repo: RepoName, bare: boolean): Workload {
  const flags = bare ? ["--bare"] : [];
  return {
    id,
    command: `git clone${bare ? " --bare" : ""} -q <url>/${repo}.git`,
    service: "git-upload-pack",
    prepare: (t, c) => rmrf(clientDir(t, c, id)),
    measure: (t, c) => git(t, c, ["clone", ...flags, "-q", t.url(repo), clientDir(t, c, id)]),
  };
}

async function commitFile(
  t: Transport,
  c: ClientContext,
  repoDir: string,
  file: string,
  content: Uint8Array,
): Promise<void> {
  await Deno.writeFile(`${repoDir}/${file}`, content);
  // Untimed preparation: store the new blob uncompressed (the push recompresses it anyway when it
  // builds its pack), which saves seconds per big-push run.
  await cmdOk("git", ["-c", "core.compression=0", "add", file], {
    cwd: repoDir,
    env: envFor(t, c),
  });
  await cmdOk("git", ["commit", "-q", "-m", `bench ${file}`], { cwd: repoDir, env: envFor(t, c) });
}

let bigFileOfRun: { run: number; bytes: Uint8Array } | null = null;
/** The big-push file of `run`. */
function bigFile(c: ClientContext, run: number): Uint8Array {
  if (bigFileOfRun?.run !== run) bigFileOfRun = { run, bytes: randomBytes(c.bigPushBytes) };
  return bigFileOfRun.bytes;
}

const pusher = (t: Transport, c: ClientContext) => clientDir(t, c, "pusher");
const fetcher = (t: Transport, c: ClientContext) => clientDir(t, c, "fetcher");
const bigPusher = (t: Transport, c: ClientContext) => clientDir(t, c, "big-pusher");
const enc = new TextEncoder();

/** The sequential workloads, in the order they run. */
export const WORKLOADS: Workload[] = [
  {
    id: "ls-remote",
    command: "git ls-remote <url>/small.git",
    service: "git-upload-pack",
    fixedCost: true,
    measure: (t, c) => git(t, c, ["ls-remote", t.url("small")]),
  },
  cloneWorkload("clone-bare-small", "small", true),
  cloneWorkload("clone-small", "small", false),
  cloneWorkload("clone-bare-big", "big", true),
  cloneWorkload("clone-big", "big", false),
  {
    id: "fetch-1-commit",
    command: "git fetch -q origin (one new commit, pushed untimed by another clone)",
    service: "git-upload-pack",
    fixedCost: true,
    async setup(t, c) {
      await git(t, c, ["clone", "-q", t.url("small"), pusher(t, c)]);
      await git(t, c, ["clone", "-q", t.url("small"), fetcher(t, c)]);
    },
    async prepare(t, c, run) {
      await commitFile(t, c, pusher(t, c), "fetch-me.txt", enc.encode(`fetch run ${run}\n`));
      await git(t, c, ["push", "-q", "origin", "main"], pusher(t, c));
    },
    measure: (t, c) => git(t, c, ["fetch", "-q", "origin"], fetcher(t, c)),
  },
  {
    id: "push-1-commit",
    command: "git push -q origin main (one small commit)",
    service: "git-receive-pack",
    fixedCost: true,
    prepare: (t, c, run) =>
      commitFile(t, c, pusher(t, c), "push-me.txt", enc.encode(`push run ${run}\n`)),
    measure: (t, c) => git(t, c, ["push", "-q", "origin", "main"], pusher(t, c)),
  },
  {
    id: "push-big",
    command: "git push -q origin main (one commit adding an incompressible file)",
    service: "git-receive-pack",
    setup: (t, c) => git(t, c, ["clone", "-q", t.url("scratch"), bigPusher(t, c)]).then(() => {}),
    // One new incompressible file per run, the same for every transport (each pushes to a
    // repository of its own): generated once, not once per transport.
    prepare: (t, c, run) => commitFile(t, c, bigPusher(t, c), `big-${run}.bin`, bigFile(c, run)),
    measure: (t, c) => git(t, c, ["push", "-q", "origin", "main"], bigPusher(t, c)),
  },
];

/**
 * Runs every workload on every transport (a `fixedCostOnly` one: the fixed-cost workloads):
 * `warmup` untimed runs, then `runs` timed ones (FIXED_COST_RUNS_FACTOR times as many for a
 * fixed-cost workload). Samples
 * are appended to `out` as each workload finishes (so a later failure keeps the earlier ones).
 */
export async function runGitWorkloads(
  all: Transport[],
  c: ClientContext,
  opts: { runs: number; warmup: number; only?: string[] },
  out: GitSample[],
): Promise<void> {
  for (const t of all) await Deno.mkdir(`${c.dir}/${t.id}`, { recursive: true });
  for (const w of WORKLOADS) {
    if (opts.only && !opts.only.includes(w.id)) continue;
    progress(`workload ${w.id}`);
    const transports = all.filter((t) => w.fixedCost || !t.fixedCostOnly);
    const samples = new Map(transports.map((t) => [t.id, [] as Timing[]]));
    for (const t of transports) await w.setup?.(t, c);
    const total = opts.warmup + opts.runs * (w.fixedCost ? FIXED_COST_RUNS_FACTOR : 1);
    for (let run = 0; run < total; run++) {
      // Rotate the order each run so no transport always goes first (or right after another).
      const order = transports.map((_, i) => transports[(i + run) % transports.length]);
      for (const t of order) {
        await w.prepare?.(t, c, run);
        const timing = await w.measure(t, c, run);
        if (run >= opts.warmup) samples.get(t.id)!.push(timing);
      }
    }
    for (const t of transports) {
      const timings = samples.get(t.id)!;
      out.push({
        workload: w.id,
        transport: t.id,
        samples: timings.map((x) => x.ms),
        clientCpu: timings.map((x) => x.cpuMs),
      });
    }
  }
}

/**
 * Client CPU (median ms of `runs`) of the helper git starts for Signet's transport `t`, doing
 * nothing else: `ssh … git@host help` for SSH (start-up, key exchange, authentication, one
 * command), `git remote-http` starting and exiting for HTTP. Null for other transports.
 */
export async function helperCpu(
  t: Transport,
  c: ClientContext,
  runs: number,
): Promise<number | null> {
  let run: () => Promise<number>;
  if (t.id === "signet-ssh") {
    const url = new URL(t.url("small"));
    const ssh = `${t.env.GIT_SSH_COMMAND} -p ${url.port} git@${url.hostname} help`;
    run = () => cmd("sh", ["-c", `exec ${ssh}`], { env: envFor(t, c) }).then((r) => r.code);
  } else if (t.id === "signet-http") {
    run = () =>
      cmd("git", [...t.gitArgs, "remote-http", "origin", t.url("small")], {
        env: envFor(t, c),
        stdin: "\n",
      }).then((r) => r.code);
  } else return null;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpu0 = childrenCpuMs();
    if (await run() !== 0) throw new Error(`[${t.id}] helper no-op failed`);
    samples.push(childrenCpuMs() - cpu0);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

/** The commands of each workload, for RESULTS.md. */
export function workloadCommands(): { id: string; command: string }[] {
  return WORKLOADS.map((w) => ({ id: w.id, command: w.command }));
}

/** Result of cloning in parallel on one transport. */
export interface ParallelResult {
  transport: string;
  clones: number;
  failures: number;
  totalMs: number;
  memory: MemoryPeak | null;
  firstError?: string;
  /** Total ms of every round, in run order, when the phase ran more than one. */
  rounds?: number[];
}

/**
 * One result from several rounds of the same transport: the median round's time and memory,
 * every round's failures, the highest memory peaks of any round.
 */
export function medianParallel(results: ParallelResult[]): ParallelResult {
  const sorted = [...results].sort((a, b) => a.totalMs - b.totalMs);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)];
  const memories = results.map((r) => r.memory).filter((m) => m !== null);
  const peak = (f: (m: MemoryPeak) => number) => Math.max(...memories.map(f));
  // The round whose main process peaked highest: its RSS peak and that peak's anonymous part.
  const highest = memories.reduce((a, b) => b.mainRss > a.mainRss ? b : a, memories[0]);
  return {
    ...mid,
    failures: results.reduce((n, r) => n + r.failures, 0),
    firstError: results.find((r) => r.firstError)?.firstError,
    memory: mid.memory && {
      ...mid.memory,
      mainRss: highest.mainRss,
      mainAnon: highest.mainAnon,
      treePss: peak((m) => m.treePss),
      maxProcesses: peak((m) => m.maxProcesses),
    },
    rounds: results.length > 1 ? results.map((r) => r.totalMs) : undefined,
  };
}

/** Loopback addresses parallel SSH clients connect from (Linux routes all of 127.0.0.0/8). */
const CLIENT_ADDRESSES = 8;

/**
 * The env of parallel client `i`: SSH clients are spread over 127.0.2.1-127.0.9.1, one /24 each,
 * as clones from many machines would be, so Signet's per-address connection cap (16) and its cap
 * on handshakes per /24 (16) do not refuse them.
 */
function parallelEnv(t: Transport, c: ClientContext, i: number): Record<string, string> {
  const env = envFor(t, c);
  if (t.kind === "ssh" && env.GIT_SSH_COMMAND) {
    env.GIT_SSH_COMMAND += ` -o BindAddress=127.0.${2 + (i % CLIENT_ADDRESSES)}.1`;
  }
  return env;
}

/** Starts `n` `git clone --bare` of the small repository at once and waits for all of them. */
export async function parallelClones(
  t: Transport,
  c: ClientContext,
  n: number,
): Promise<ParallelResult> {
  const base = clientDir(t, c, "parallel");
  await rmrf(base);
  await Deno.mkdir(base, { recursive: true });
  const sampler = t.server ? sampleMemory(t.server) : null;
  const started = performance.now();
  const results = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        cmd("git", [...t.gitArgs, "clone", "--bare", "-q", t.url("small"), `${base}/c${i}`], {
          env: parallelEnv(t, c, i),
        }),
    ),
  );
  const totalMs = performance.now() - started;
  const memory = sampler ? sampler.stop() : null;
  const failed = results.filter((r) => r.code !== 0);
  await rmrf(base);
  return {
    transport: t.id,
    clones: n,
    failures: failed.length,
    totalMs,
    memory,
    firstError: failed[0]?.stderr.slice(-500),
  };
}
