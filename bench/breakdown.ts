/**
 * Where a small git operation's time goes on Signet (issue 29): the fixed-cost workloads (ls-remote,
 * fetch of one commit, push of one commit) run again over Signet's SSH and HTTP transports, one at a
 * time, and the server's own log lines of each run give the server-side phases: for SSH the
 * connection's identification, key exchange with authentication (and the time in Signet's
 * authentication code), the exec request, the user and repository look-ups, spawning git, git's
 * run and the exit (server/ssh/timeline.ts); for HTTP each request's time to its response headers,
 * and for git's requests the look-up, reading the body and starting git, and git's run
 * (server/http/git.ts). The client floor of the same run (file:// median plus the helper's own CPU)
 * is what no server can go under.
 */
import { WORKLOADS } from "./git_workloads.ts";
import type { ClientContext, Timing } from "./git_workloads.ts";
import type { Transport } from "./transport.ts";
import { median, progress, sleep } from "./util.ts";

/** One workload over one transport: per run, the client's figures and the server's phases. */
export interface Breakdown {
  transport: string;
  workload: string;
  wallMs: number[];
  clientCpuMs: number[];
  /** Per phase, its total in each run (ms); HTTP's `requests` counts requests. */
  phases: Record<string, number[]>;
}

/** Reads the log lines appended to `file` since `offset`; returns them and the new offset. */
async function linesSince(
  file: string,
  offset: number,
): Promise<[Record<string, unknown>[], number]> {
  const bytes = await Deno.readFile(file);
  const text = new TextDecoder().decode(bytes.subarray(offset));
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(line));
    } catch { /* a line still being written: not ours */ }
  }
  return [lines, bytes.length];
}

/**
 * Sums the server's phases over one run's log lines. Only the sessions and transfers of `service`
 * count: those lines are written as git exits, beside the client's exit, so a preparation's push
 * (fetch-1-commit's) can log its own after the measured run has begun.
 */
function phasesOfRun(
  kind: "ssh" | "http",
  lines: Record<string, unknown>[],
  service: string,
): Record<string, number> {
  const sums: Record<string, number> = {};
  const add = (name: string, ms: unknown) => {
    if (typeof ms === "number") sums[name] = (sums[name] ?? 0) + ms;
  };
  for (const line of lines) {
    if (kind === "ssh" && line.msg === "ssh session" && String(line.command).startsWith(service)) {
      for (const [k, v] of Object.entries(line)) if (k.startsWith("phase_")) add(k.slice(6), v);
    }
    if (kind === "http" && line.msg === "http request") {
      add("requests", 1);
      add("to_headers", line.ms);
    }
    if (kind === "http" && line.msg === "git transfer" && line.service === service) {
      for (const [k, v] of Object.entries(line)) if (k.startsWith("phase_")) add(k.slice(6), v);
    }
  }
  return sums;
}

/**
 * Runs each fixed-cost workload `runs` times over each of `transports` (Signet's, whose server
 * logs to `logFiles[transport.id]`), one at a time, and collects the phases.
 */
export async function measureBreakdown(
  transports: Transport[],
  logFiles: Record<string, string>,
  c: ClientContext,
  runs: number,
): Promise<Breakdown[]> {
  const out: Breakdown[] = [];
  // The workloads whose cost is mostly fixed (per operation, not per byte).
  for (const w of WORKLOADS.filter((x) => x.fixedCost)) {
    for (const t of transports) {
      const file = logFiles[t.id];
      if (!file || (t.kind !== "ssh" && t.kind !== "http")) continue;
      progress(`breakdown: ${w.id} over ${t.id}`);
      // The timed phase made the clones this workload works in; alone (--workloads), make them.
      await w.setup?.(t, c).catch(() => {});
      const b: Breakdown = {
        transport: t.id,
        workload: w.id,
        wallMs: [],
        clientCpuMs: [],
        phases: {},
      };
      let offset = (await Deno.stat(file)).size;
      for (let i = 0; i < runs; i++) {
        // Run numbers of their own: the commits prepared must differ from the timed phase's.
        const run = 100_000 + i;
        await w.prepare?.(t, c, run);
        [, offset] = await linesSince(file, offset);
        const timing: Timing = await w.measure(t, c, run);
        await sleep(50); // the transfer's line is written as git exits, beside the response
        const [lines, next] = await linesSince(file, offset);
        offset = next;
        b.wallMs.push(timing.ms);
        b.clientCpuMs.push(timing.cpuMs);
        for (const [phase, ms] of Object.entries(phasesOfRun(t.kind, lines, w.service))) {
          (b.phases[phase] ??= []).push(ms);
        }
      }
      out.push(b);
    }
  }
  return out;
}

/** The median of each phase (ms), in the order the server goes through them. */
export function phaseMedians(b: Breakdown): [string, number][] {
  return Object.entries(b.phases).map(([k, v]) => [k, median(v)]);
}
