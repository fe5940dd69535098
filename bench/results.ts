/** One bench run's measurements (BenchReport), the lookups into them, and the issue's goals checked against them; bench/report.ts renders them as bench/RESULTS.md. */
import type { IdleMemory, MemoryAfterLoad } from "./memory.ts";
import type { Breakdown } from "./breakdown.ts";
import { PAGE_P99_GOAL_MS } from "./admin_lists.ts";
import { fmt, fmtPercent, fmtRatio, median } from "./util.ts";
import type { GitSample, ParallelResult } from "./git_workloads.ts";
import type { ApiResults, RegistryResults } from "./api_workloads.ts";
import type { Transport } from "./transport.ts";
import { type CliStartup, cliStartupGoal } from "./cli_startup.ts";
import type { EngineRegistry } from "./engine_workloads.ts";
import { CLUSTER_SETUPS, type ClusterResults, type ClusterSetup } from "./cluster_workloads.ts";

/** Everything one bench run produced. */
export interface BenchReport {
  started: Date;
  finished: Date;
  quick: boolean;
  machine: Record<string, string>;
  settings: Record<string, string>;
  transports: Transport[];
  commands: { id: string; command: string }[];
  git: GitSample[];
  /** Client CPU (ms) of a no-op run of the helper git starts for a Signet transport. */
  helpers?: Record<string, number>;
  parallel: ParallelResult[];
  api: ApiResults | null;
  /** CLI start-up (absent in reports of runs before it was measured). */
  cli?: CliStartup | null;
  /** The registry on SQLite and PostgreSQL (absent in runs before the engine comparison). */
  engines?: EngineRegistry | null;
  /** Two instances behind nginx against one (absent in runs before the cluster phase). */
  cluster?: ClusterResults | null;
  /** Memory at rest, and after the loads (absent in runs before it was measured). */
  memory?: { idle: IdleMemory | null; afterLoad: MemoryAfterLoad | null } | null;
  /** Where the fixed-cost git operations' time goes (absent in runs before it was measured). */
  breakdown?: Breakdown[];
  /**
   * Whether each goal held in the previous full run (bench/goals.json, written by every full run):
   * a goal counts as met only when its median meets it in two consecutive full runs.
   */
  previousGoals?: PreviousGoals | null;
  notes: string[];
}

/** One goal and whether it held in this run. */
export interface GoalCheck {
  goal: string;
  measured: string;
  ok: boolean | null;
}

/** The median wall time (ms) of `workload` over `transport`; NaN when not measured. */
export function med(report: BenchReport, workload: string, transport: string): number {
  const s = report.git.find((g) => g.workload === workload && g.transport === transport);
  return s ? median(s.samples) : NaN;
}

/** The median client CPU (ms) of `workload` over `transport`; NaN when not measured. */
export function cpu(report: BenchReport, workload: string, transport: string): number {
  const s = report.git.find((g) => g.workload === workload && g.transport === transport);
  return s?.clientCpu?.length ? median(s.clientCpu) : NaN;
}

/**
 * The ratio to file:// a server costing nothing would reach on `workload` over `transport`:
 * (file:// median + the transport's helper no-op CPU) / file:// median (see renderClientFloor).
 */
export function clientFloor(report: BenchReport, workload: string, transport: string): number {
  const fileMs = med(report, workload, "file");
  return (fileMs + (helperOf(report, transport) ?? NaN)) / fileMs;
}

/**
 * The helper no-op CPU that sets `transport`'s floor: its own, or for the stack's limit
 * (bench/baselines/thin.ts) Signet's on the same transport: the same client, key and algorithms.
 */
export function helperOf(report: BenchReport, transport: string): number | undefined {
  const same = transport.replace(/^thin-/, "signet-");
  return report.helpers?.[transport] ?? report.helpers?.[same];
}

/**
 * Per run, `transport`'s time on `workload` over its client floor in that run: file://'s sample of
 * the same run plus the helper's no-op CPU (runs are interleaved, so sample i of each transport
 * comes from the same round). Empty when not measured.
 */
export function floorRatios(report: BenchReport, workload: string, transport: string): number[] {
  const s = report.git.find((g) => g.workload === workload && g.transport === transport);
  const f = report.git.find((g) => g.workload === workload && g.transport === "file");
  const helper = helperOf(report, transport);
  if (!s || !f || helper === undefined) return [];
  return s.samples.map((ms, i) => ms / (f.samples[i] + helper)).filter(Number.isFinite);
}

/** Whether `transport` ran in this report. */
export function has(report: BenchReport, transport: string): boolean {
  return report.transports.some((t) => t.id === transport);
}

/** Evaluates the issue's goals against this run. `null` = not measurable in this run. */
export function checkGoals(report: BenchReport): GoalCheck[] {
  const goals: GoalCheck[] = [];
  const workloads = [...new Set(report.git.map((g) => g.workload))];
  // Issue 29: the client floor is the bar (the goals against OpenSSH, nginx and file:// are met
  // and retired). Per run, Signet's time over (file:// in the same run + the helper's CPU).
  for (const id of ["signet-ssh", "signet-http"]) {
    const name = id === "signet-ssh" ? "SSH" : "HTTP";
    const goal = `${name}: every git workload <= 1.05x its client floor (median of runs)`;
    if (!has(report, id) || !report.helpers?.[id]) {
      goals.push({ goal, measured: `${id} or its helper CPU not measured`, ok: null });
      continue;
    }
    const parts: string[] = [];
    let ok = true;
    for (const w of workloads) {
      const r = floorRatios(report, w, id);
      if (!r.length) continue;
      const m = median(r);
      parts.push(
        `${w} ${fmtRatio(m)} (${fmtRatio(Math.min(...r))}–${fmtRatio(Math.max(...r))})`,
      );
      if (m > 1.05) ok = false;
    }
    goals.push({ goal, measured: parts.join(", "), ok: parts.length ? ok : null });
  }
  const file = report.parallel.find((p) => p.transport === "file");
  for (const id of ["signet-ssh", "signet-http"]) {
    const p = report.parallel.find((x) => x.transport === id);
    if (!p || !file) {
      goals.push({ goal: `${id}: parallel clones`, measured: "not measured", ok: null });
      continue;
    }
    const r = p.totalMs / file.totalMs;
    const rssMb = (p.memory?.mainRss ?? 0) / 1024;
    goals.push({
      goal: `${id}: ${p.clones} parallel clones, 0 failures, <= 1.1x file://, server RSS < 300 MB`,
      measured: `${p.failures} failures, ${fmtRatio(r)}, RSS ${fmt(rssMb)} MB`,
      ok: p.failures === 0 && r <= 1.1 && rssMb < 300,
    });
  }
  const api = report.api;
  if (api?.registry) {
    const g = api.registry;
    // Every run has at least one round; one round's ratio is the rows' ratio.
    const ratios = g.getRounds.map((r) => r.getRps / r.bareRps);
    const r = median(ratios);
    const thin = g.getRounds.map((r) => r.thinRps / r.bareRps);
    const limit = thin.every(Number.isFinite)
      ? `; the thinnest reader of the same file (the stack's limit) ${
        fmtPercent(median(thin))
      } (rounds: ${thin.map(fmtPercent).join(", ")}), Signet / thinnest ${
        fmtRatio(median(g.getRounds.map((r) => r.getRps / r.thinRps)))
      }`
      : "";
    goals.push({
      goal: "Registry: GET bot >= 60% of bare Deno.serve req/s",
      measured: (ratios.length > 1
        ? `median of ${ratios.length} back-to-back rounds ${fmtPercent(r)} (rounds: ${
          ratios.map(fmtPercent).join(", ")
        })`
        : `${fmt(g.getBot.rps)} vs ${fmt(g.bare.rps)} req/s = ${fmtPercent(r)}`) + limit,
      ok: r >= 0.6,
    });
    const searchRounds = g.searchP99Rounds ?? [];
    goals.push({
      goal: `Registry: search p99 < 10 ms at ${g.bots.toLocaleString("en")} bots`,
      measured: searchRounds.length > 1
        ? `median of ${searchRounds.length} rounds: p99 ${fmt(g.search.p99)} ms (rounds: ${
          searchRounds.map(fmt).join(", ")
        } ms)`
        : `p99 ${fmt(g.search.p99)} ms`,
      ok: g.search.p99 < 10,
    });
    if (g.storeCeiling) {
      const c = g.mutations.rps / g.storeCeiling.rps;
      goals.push({
        goal: "Registry: verified creates >= 60% of the store-mode ceiling (same run)",
        measured: `${fmt(g.mutations.rps)} vs ${g.storeCeiling.ranOut ? "at least " : ""}${
          fmt(g.storeCeiling.rps)
        }/s = ${g.storeCeiling.ranOut ? "at most " : ""}${fmtPercent(c)}${
          g.storeCeiling.ranOut ? " (the ceiling's load ran out of pre-signed bodies)" : ""
        }${domainLimit(g)}`,
        ok: c >= 0.6,
      });
    }
    const us = g.mutationMainThread?.usPerCreate;
    goals.push({
      goal: "Registry: a verified create costs <= 400 µs of the main thread's CPU",
      measured: us === undefined ? "not measured" : `${fmt(us)} µs`,
      ok: us === undefined ? null : us <= 400,
    });
    const m = g.mutations.rps / g.rawVerifyPerSec;
    goals.push({
      goal: "Registry: verified mutations/s >= 40% of raw import+verify rate",
      measured: `${fmt(g.mutations.rps)} vs ${fmt(g.rawVerifyPerSec)}/s = ${fmtPercent(m)}`,
      ok: m >= 0.4,
    });
  } else {
    goals.push({ goal: "Registry goals", measured: "registry not available", ok: null });
  }
  if (report.cli) goals.push(cliStartupGoal(report.cli));
  else goals.push({ goal: "CLI start-up", measured: "not measured", ok: null });
  const lists = api?.rows.filter((r) => r.name.includes("pages of 50")) ?? [];
  goals.push({
    goal: `Lists: p99 <= ${PAGE_P99_GOAL_MS} ms a page at 10,000 repositories and 1,000 users`,
    measured: lists.length
      ? lists.map((r) => `${r.name.split(",")[0]} ${r.p99.toFixed(1)} ms`).join("; ")
      : "not measured",
    ok: lists.length ? lists.every((r) => r.p99 <= PAGE_P99_GOAL_MS && r.errors === 0) : null,
  });
  goals.push(...memoryGoals(report.memory));
  const minutes = (report.finished.getTime() - report.started.getTime()) / 60000;
  goals.push({
    goal: report.quick
      ? "--quick finishes in under 2 minutes"
      : "bench finishes in under 10 minutes",
    measured: `${minutes.toFixed(1)} min`,
    ok: minutes < (report.quick ? 2 : 10),
  });
  return goals;
}

/** One figure of the engine comparison: its samples (runs or rounds) on each engine. */
export interface EngineFigure {
  workload: string;
  unit: string;
  sqlite: number[];
  postgres: number[];
  /** The goal as the table states it, and whether PostgreSQL's figure meets it (null: none). */
  goal: string;
  ok: boolean | null;
}

/**
 * Ratio PostgreSQL / SQLite: the median of the per-run ratios when both engines ran the same runs
 * (the i-th sample of each came from the same run or round, close together in time, so the
 * machine's drift between runs cancels); otherwise the ratio of the medians.
 */
export function engineRatio(f: Pick<EngineFigure, "sqlite" | "postgres">): number {
  if (f.sqlite.length !== f.postgres.length || !f.sqlite.length) {
    return median(f.postgres) / median(f.sqlite);
  }
  return median(f.postgres.map((p, i) => p / f.sqlite[i]));
}

/** Git workloads the engine goal judges (ls-remote is shown, as context). */
const ENGINE_GIT_GOAL = /^(clone|fetch|push)/;
/** PostgreSQL's git time may be at most this many times SQLite's. */
export const ENGINE_GIT_LIMIT = 1.05;

/** Every figure of the engine comparison present in this run, registry first. */
export function engineFigures(report: BenchReport): EngineFigure[] {
  const out: EngineFigure[] = [];
  const e = report.engines;
  if (e) {
    const rps = (rows: { rps: number }[]) => rows.map((r) => r.rps);
    const p99 = (rows: { p99: number }[]) => rows.map((r) => r.p99);
    const get = { sqlite: rps(e.get.sqlite), postgres: rps(e.get.postgres) };
    out.push({
      workload: `GET /v1/bots/{id}, ${e.bots.postgres.toLocaleString("en")} bots`,
      unit: "req/s",
      ...get,
      goal: "PostgreSQL >= 60% of SQLite",
      ok: engineRatio(get) >= 0.6,
    });
    const search = { sqlite: p99(e.search.sqlite), postgres: p99(e.search.postgres) };
    out.push({
      workload: "GET /v1/search p99",
      unit: "ms",
      ...search,
      goal: "PostgreSQL < 25 ms",
      ok: median(search.postgres) < 25,
    });
    out.push({
      workload: "GET /v1/search",
      unit: "req/s",
      sqlite: rps(e.search.sqlite),
      postgres: rps(e.search.postgres),
      goal: "",
      ok: null,
    });
    const creates = { sqlite: rps(e.creates.sqlite), postgres: rps(e.creates.postgres) };
    out.push({
      workload: "POST /v1/bots (verified create)",
      unit: "req/s",
      ...creates,
      goal: "PostgreSQL >= 50% of SQLite",
      ok: engineRatio(creates) >= 0.5,
    });
  }
  const workloads = [...new Set(report.git.map((g) => g.workload))];
  for (const transport of ["signet-ssh", "signet-http"]) {
    for (const w of workloads) {
      const find = (id: string) =>
        report.git.find((g) => g.workload === w && g.transport === id)?.samples;
      const sqlite = find(transport);
      const postgres = find(`${transport}-pg`);
      if (!sqlite?.length || !postgres?.length) continue;
      const judged = ENGINE_GIT_GOAL.test(w);
      out.push({
        workload: `${transport.replace("signet-", "")} ${w}`,
        unit: "ms",
        sqlite,
        postgres,
        goal: judged ? `PostgreSQL <= ${ENGINE_GIT_LIMIT.toFixed(2)}x SQLite` : "",
        ok: judged ? engineRatio({ sqlite, postgres }) <= ENGINE_GIT_LIMIT : null,
      });
    }
  }
  return out;
}

/** The engine goals of issue 25 against this run (none when PostgreSQL did not run). */
export function checkEngineGoals(report: BenchReport): GoalCheck[] {
  const figures = engineFigures(report).filter((f) => f.ok !== null);
  if (!figures.length) return [];
  const git = figures.filter((f) => f.goal.includes("x SQLite"));
  const goals: GoalCheck[] = figures.filter((f) => !git.includes(f)).map((f) => ({
    goal: `Engines: ${f.workload}: ${f.goal}`,
    measured: `SQLite ${fmt(median(f.sqlite))} ${f.unit}, PostgreSQL ${
      fmt(median(f.postgres))
    } ${f.unit} (${fmtRatio(engineRatio(f))})`,
    ok: f.ok,
  }));
  if (git.length) {
    goals.push({
      goal: `Engines: git clone, fetch, push on PostgreSQL <= ${
        ENGINE_GIT_LIMIT.toFixed(2)
      }x SQLite`,
      measured: git.map((f) => `${f.workload} ${fmtRatio(engineRatio(f))}`).join(", "),
      ok: git.every((f) => f.ok),
    });
  }
  return goals;
}

/** What nginx and the second instance may cost against one instance alone (issue 26). */
export const CLUSTER_COST_LIMIT = 0.15;

/** One figure of the cluster comparison: its rounds on each setup. */
export interface ClusterFigure {
  workload: string;
  unit: string;
  values: Record<ClusterSetup, number[]>;
  /** Whether more is better (req/s) or worse (seconds). */
  higherIsBetter: boolean;
  goal: string;
  ok: boolean;
  /** Operations that failed over all rounds and setups. */
  failures: number;
}

/** nginx + two instances against one instance alone, as a ratio of the medians. */
export function clusterRatio(f: ClusterFigure): number {
  return median(f.values["nginx-two"]) / median(f.values.one);
}

/** The figures of the cluster comparison in this run (none when it did not run). */
export function clusterFigures(report: BenchReport): ClusterFigure[] {
  const c = report.cluster;
  if (!c) return [];
  const per = <T>(rounds: Record<ClusterSetup, T[]>, f: (x: T) => number) =>
    Object.fromEntries(CLUSTER_SETUPS.map((s) => [s, rounds[s].map(f)])) as Record<
      ClusterSetup,
      number[]
    >;
  const limit = `${Math.round(CLUSTER_COST_LIMIT * 100)}%`;
  const out: ClusterFigure[] = [];
  const get = per(c.get, (r) => r.rps);
  out.push({
    workload: `GET /v1/bots/{id}, ${c.bots.toLocaleString("en")} bots`,
    unit: "req/s",
    values: get,
    higherIsBetter: true,
    goal: `nginx + two >= ${100 - Math.round(CLUSTER_COST_LIMIT * 100)}% of one`,
    ok: median(get["nginx-two"]) / median(get.one) >= 1 - CLUSTER_COST_LIMIT,
    failures: CLUSTER_SETUPS.reduce((n, s) => n + c.get[s].reduce((m, r) => m + r.errors, 0), 0),
  });
  for (const [kind, rounds] of [["HTTP", c.httpClones], ["SSH", c.sshClones]] as const) {
    const seconds = per(rounds, (r) => r.totalMs / 1000);
    out.push({
      workload: `${c.clones} parallel clones over ${kind}`,
      unit: "s",
      values: seconds,
      higherIsBetter: false,
      goal: `nginx + two <= one + ${limit}`,
      ok: median(seconds["nginx-two"]) / median(seconds.one) <= 1 + CLUSTER_COST_LIMIT,
      failures: CLUSTER_SETUPS.reduce(
        (n, s) => n + rounds[s].reduce((m, r) => m + r.failures, 0),
        0,
      ),
    });
  }
  return out;
}

/** The cluster goals of issue 26 against this run (none when the cluster did not run). */
export function checkClusterGoals(report: BenchReport): GoalCheck[] {
  return clusterFigures(report).map((f) => ({
    goal: `Cluster: ${f.workload}: ${f.goal}, none failed`,
    measured: `one ${fmt(median(f.values.one))} ${f.unit}, nginx + two ${
      fmt(median(f.values["nginx-two"]))
    } ${f.unit} (${fmtRatio(clusterRatio(f))})${f.failures ? `, ${f.failures} failed` : ""}`,
    ok: f.ok && f.failures === 0,
  }));
}

/** Idle RSS <= 2x a bare Deno.serve, and back within 1.5x of idle after the loads (issue 29). */
export function memoryGoals(memory: BenchReport["memory"]): GoalCheck[] {
  const idle = memory?.idle;
  if (!idle) return [{ goal: "Memory at rest", measured: "not measured", ok: null }];
  const r = idle.signet.median / idle.bare.median;
  const goals: GoalCheck[] = [{
    goal: "Memory: an idle Signet (no data) <= 2x the RSS of an idle bare Deno.serve",
    measured: `${fmt(idle.signet.median)} MB vs ${fmt(idle.bare.median)} MB = ${
      fmtRatio(r)
    } (${idle.signetThreads} threads${
      idle.signetAnonymous === undefined || idle.bareAnonymous === undefined
        ? ""
        : `; anonymous ${fmt(idle.signetAnonymous)} vs ${fmt(idle.bareAnonymous)} MB`
    })`,
    ok: r <= 2,
  }];
  const after = memory?.afterLoad;
  if (after) {
    const a = after.afterLoad.median / idle.signet.median;
    goals.push({
      goal: "Memory: the bench's Signet, idle after its loads, <= 1.5x the idle RSS",
      measured: `${fmt(after.afterLoad.median)} MB (${
        fmt(after.afterLoadAnonymous)
      } MB anonymous, the rest mapped files) = ${fmtRatio(a)} of ${fmt(idle.signet.median)} MB`,
      ok: a <= 1.5,
    });
  }
  return goals;
}

/** What the last full run found for each goal (bench/goals.json). */
export interface PreviousGoals {
  started: string;
  goals: Record<string, boolean | null>;
}

/** Reads bench/goals.json at `path`; null when absent or unreadable. */
export async function readPreviousGoals(path: string): Promise<PreviousGoals | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch {
    return null;
  }
}

/** The goals of `report` as bench/goals.json keeps them. */
export function goalRecord(report: BenchReport, goals: GoalCheck[]): PreviousGoals {
  return {
    started: report.started.toISOString(),
    goals: Object.fromEntries(goals.map((g) => [g.goal, g.ok])),
  };
}

/** The goal's note on Signet's create alone: its share of the ceiling, and Signet's of it. */
function domainLimit(g: RegistryResults): string {
  const d = g.domainCeiling;
  if (!d || !g.storeCeiling || d.rps === 0) return "";
  return `; Signet's create alone (create_ceiling.ts domain, every check the spec requires) ${
    d.ranOut ? "at least " : ""
  }${fmt(d.rps)}/s = ${fmtPercent(d.rps / g.storeCeiling.rps)} of the ceiling, Signet ${
    fmtPercent(g.mutations.rps / d.rps)
  } of it`;
}
