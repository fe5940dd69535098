/** Long-running server processes of the bench: start, stop, and memory of their process tree. */
import { statFields } from "../util.ts";

/** A server started by the bench; `roots` are the PIDs whose descendants belong to it. */
export interface ServerProcess {
  name: string;
  roots(): number[];
  stop(): Promise<void>;
}

/** Parent PID of every live process, read from /proc. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const fields = statFields(`/proc/${e.name}/stat`);
    if (fields) out.set(Number(e.name), Number(fields[1]));
  }
  return out;
}

/** `roots` and all their live descendants. */
export function processTree(roots: number[]): number[] {
  const ppid = parents();
  const children = new Map<number, number[]>();
  for (const [pid, parent] of ppid) {
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(pid);
  }
  const seen: number[] = [];
  const stack = roots.filter((p) => ppid.has(p));
  while (stack.length) {
    const pid = stack.pop()!;
    seen.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return seen;
}

/** Children (direct) of `pid`. */
export function childrenOf(pid: number): number[] {
  return [...parents()].filter(([, parent]) => parent === pid).map(([p]) => p);
}

function kbField(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** Memory of one process in KiB, 0 if gone. */
export interface ProcessMemory {
  /** Resident set. */
  rss: number;
  /** Proportional set (shared pages divided among their users). */
  pss: number;
  /** Of the RSS: anonymous memory (heaps, buffers). */
  anon: number;
}

/** Memory of one process (see ProcessMemory). */
export function memoryOf(pid: number): ProcessMemory {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`);
    return {
      rss: kbField(text, "Rss"),
      pss: kbField(text, "Pss"),
      anon: kbField(text, "Anonymous"),
    };
  } catch {
    return { rss: 0, pss: 0, anon: 0 };
  }
}

/** Peak memory seen while sampling a server. All values in KiB. */
export interface MemoryPeak {
  /** RSS of the main server process when sampling started (what earlier work left behind). */
  startRss: number;
  /** Largest RSS of the main server process alone (the first root). */
  mainRss: number;
  /** Of mainRss at its peak: anonymous memory. */
  mainAnon: number;
  /** Largest sum of PSS over the whole process tree (server + git children). */
  treePss: number;
  /** Most processes seen in the tree at once. */
  maxProcesses: number;
}

/** Samples the memory of `server` every `everyMs` until `stop()` is called. */
export function sampleMemory(server: ServerProcess, everyMs = 100): { stop(): MemoryPeak } {
  const peak: MemoryPeak = { startRss: -1, mainRss: 0, mainAnon: 0, treePss: 0, maxProcesses: 0 };
  const take = () => {
    const roots = server.roots();
    if (roots.length === 0) return;
    const tree = processTree(roots);
    let pss = 0;
    for (const pid of tree) pss += memoryOf(pid).pss;
    const { rss, anon } = memoryOf(roots[0]);
    if (peak.startRss < 0) peak.startRss = rss;
    if (rss > peak.mainRss) [peak.mainRss, peak.mainAnon] = [rss, anon];
    peak.treePss = Math.max(peak.treePss, pss);
    peak.maxProcesses = Math.max(peak.maxProcesses, tree.length);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/** Sends `signal` to `pid`, ignoring a process that is already gone. */
export function signal(pid: number, sig: Deno.Signal = "SIGTERM"): void {
  try {
    Deno.kill(pid, sig);
  } catch { /* gone */ }
}

/** Waits until `pid` no longer exists (or `timeoutMs` passes). */
export async function waitGone(pid: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      Deno.statSync(`/proc/${pid}`);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/**
 * Stops nginx (SIGQUIT, a graceful stop) and then fcgiwrap, with its preforked children: they
 * outlive their parent, so they are stopped by PID.
 */
export async function stopNginxFcgi(
  nginx: Deno.ChildProcess,
  fcgi: Deno.ChildProcess,
): Promise<void> {
  signal(nginx.pid, "SIGQUIT");
  await nginx.status;
  const children = childrenOf(fcgi.pid);
  signal(fcgi.pid, "SIGTERM");
  for (const pid of children) signal(pid, "SIGTERM");
  await fcgi.status;
  for (const pid of children) await waitGone(pid);
}
