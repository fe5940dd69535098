/** Turns the measurements into bench/RESULTS.md: conditions, commands, raw numbers, ratios, goals. */
import { fmt, fmtRatio, median } from "./util.ts";
import type { GitSample, ParallelResult } from "./git_workloads.ts";
import type { ApiResults, CreateBreakdown, GetRound } from "./api_workloads.ts";
import {
  GET_WARM_UP_SECONDS,
  getRoundSeconds,
  SEARCH_WARM_UP_SECONDS,
} from "./registry_workloads.ts";
import type { Transport } from "./transport.ts";
import { type CliStartup, cliStartupGoal, renderCliStartup } from "./cli_startup.ts";

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
  notes: string[];
}

/** One goal and whether it held in this run. */
export interface GoalCheck {
  goal: string;
  measured: string;
  ok: boolean | null;
}

function med(report: BenchReport, workload: string, transport: string): number {
  const s = report.git.find((g) => g.workload === workload && g.transport === transport);
  return s ? median(s.samples) : NaN;
}

function cpu(report: BenchReport, workload: string, transport: string): number {
  const s = report.git.find((g) => g.workload === workload && g.transport === transport);
  return s?.clientCpu?.length ? median(s.clientCpu) : NaN;
}

/**
 * The ratio to file:// a server costing nothing would reach on `workload` over `transport`:
 * (file:// median + the transport's helper no-op CPU) / file:// median (see renderClientFloor).
 */
function clientFloor(report: BenchReport, workload: string, transport: string): number {
  const fileMs = med(report, workload, "file");
  return (fileMs + (report.helpers?.[transport] ?? NaN)) / fileMs;
}

function has(report: BenchReport, transport: string): boolean {
  return report.transports.some((t) => t.id === transport);
}

const SMALL_REPO_WORKLOADS = ["clone-bare-small", "clone-small", "fetch-1-commit", "push-1-commit"];

/** Evaluates the issue's goals against this run. `null` = not measurable in this run. */
export function checkGoals(report: BenchReport): GoalCheck[] {
  const goals: GoalCheck[] = [];
  const workloads = [...new Set(report.git.map((g) => g.workload))];
  const ratioGoal = (
    goal: string,
    num: string,
    den: string,
    ids: string[],
    limit: number,
    withFloor = false,
  ) => {
    if (!has(report, num) || !has(report, den)) {
      goals.push({ goal, measured: `${num} not measured`, ok: null });
      return;
    }
    const parts: string[] = [];
    let ok = true;
    for (const id of ids) {
      const r = med(report, id, num) / med(report, id, den);
      if (!Number.isFinite(r)) continue;
      const floor = clientFloor(report, id, num);
      parts.push(
        `${id} ${fmtRatio(r)}${
          withFloor && Number.isFinite(floor) ? ` (floor ${fmtRatio(floor)})` : ""
        }`,
      );
      if (r > limit) ok = false;
    }
    goals.push({ goal, measured: parts.join(", "), ok: parts.length ? ok : null });
  };
  const notBig = workloads.filter((w) => w !== "push-big");
  ratioGoal("SSH: every workload <= 1.0x OpenSSH", "signet-ssh", "openssh", workloads, 1.0);
  ratioGoal("SSH: ls-remote <= 0.3x OpenSSH", "signet-ssh", "openssh", ["ls-remote"], 0.3);
  ratioGoal(
    "SSH: clone, fetch, push of the small repo <= 1.4x file://",
    "signet-ssh",
    "file",
    SMALL_REPO_WORKLOADS,
    1.4,
    true,
  );
  ratioGoal("HTTP: every workload <= 1.0x nginx", "signet-http", "nginx", workloads, 1.0);
  ratioGoal(
    "HTTP: every workload <= 1.3x file:// (push-big judged separately)",
    "signet-http",
    "file",
    notBig,
    1.3,
    true,
  );
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
      goal: `${id}: ${p.clones} parallel clones, 0 failures, <= 1.3x file://, server RSS < 300 MB`,
      measured: `${p.failures} failures, ${fmtRatio(r)}, RSS ${fmt(rssMb)} MB`,
      ok: p.failures === 0 && r <= 1.3 && rssMb < 300,
    });
  }
  const api = report.api;
  if (api?.registry) {
    const g = api.registry;
    // Every run has at least one round; one round's ratio is the rows' ratio.
    const ratios = g.getRounds.map((r) => r.getRps / r.bareRps);
    const r = median(ratios);
    goals.push({
      goal: "Registry: GET bot >= 50% of bare Deno.serve req/s",
      measured: ratios.length > 1
        ? `median of ${ratios.length} back-to-back rounds ${(r * 100).toFixed(0)}% (rounds: ${
          ratios.map((x) => `${(x * 100).toFixed(0)}%`).join(", ")
        })`
        : `${fmt(g.getBot.rps)} vs ${fmt(g.bare.rps)} req/s = ${(r * 100).toFixed(0)}%`,
      ok: r >= 0.5,
    });
    goals.push({
      goal: `Registry: search p99 < 25 ms at ${g.bots.toLocaleString("en")} bots`,
      measured: `p99 ${fmt(g.search.p99)} ms`,
      ok: g.search.p99 < 25,
    });
    const m = g.mutations.rps / g.rawVerifyPerSec;
    goals.push({
      goal: "Registry: verified mutations/s >= 40% of raw import+verify rate",
      measured: `${fmt(g.mutations.rps)} vs ${fmt(g.rawVerifyPerSec)}/s = ${(m * 100).toFixed(0)}%`,
      ok: m >= 0.4,
    });
  } else {
    goals.push({ goal: "Registry goals", measured: "registry not available", ok: null });
  }
  if (report.cli) goals.push(cliStartupGoal(report.cli));
  else goals.push({ goal: "CLI start-up", measured: "not measured", ok: null });
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

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

const mark = (ok: boolean | null) => (ok === null ? "n/a" : ok ? "yes" : "**no**");

/** Renders the Markdown report. */
export function renderReport(report: BenchReport): string {
  const ids = report.transports.map((t) => t.id);
  const workloads = [...new Set(report.git.map((g) => g.workload))];
  const out: string[] = [];
  out.push(`# Benchmark results${report.quick ? " (--quick)" : ""}`, "");
  out.push(
    `Generated by \`deno task bench${
      report.quick ? " --quick" : ""
    }\` on ${report.started.toISOString()} (${
      ((report.finished.getTime() - report.started.getTime()) / 1000).toFixed(0)
    } s).`,
    "",
  );
  out.push("## Machine and conditions", "");
  for (const [k, v] of Object.entries(report.machine)) out.push(`- ${k}: ${v}`);
  for (const n of report.notes) out.push(`- ${n}`);
  out.push("", "## Reading these numbers", "");
  out.push(
    "- Every transport ran in the same process tree on the same machine, interleaved run by run " +
      "(order rotated), so background load hits all of them alike; compare ratios, not absolute " +
      "milliseconds, and treat differences of a few percent as noise.",
    "- `file://` is a lower bound, not a server: one local `git upload-pack`, no network, no " +
      "helper process. HTTP always adds git's `git-remote-http` helper and one server process per " +
      "request (two or three requests per operation), so the fixed-cost workloads (`ls-remote`, " +
      "fetch and push of one commit) cannot approach it over HTTP: nginx itself is far above 1.3x " +
      "there.",
    "- `push-big` mostly measures zlib: the client compresses the pack; file://, OpenSSH and " +
      "nginx run git's default, which unpacks a push of fewer than 100 objects into loose " +
      "objects (compressing them again), while Signet keeps the pack as sent " +
      "(`receive.unpackLimit=1`, docs/decisions/git-hosting.md). The transports are judged by the other " +
      "workloads.",
    "- Signet answers a clone of an unchanged repository from its clone cache (docs/decisions/git-hosting.md, " +
      "'Clone cache'): the first clone of a repository state (a warm-up run) runs git, later " +
      "identical clones read its response; file://, OpenSSH and nginx run pack-objects for every " +
      "clone. Fetches and pushes never use the cache.",
    "- Registry latency is measured under load (the connection count below): p99 then includes " +
      "queueing behind other requests; the one-connection search row shows service time alone.",
  );
  out.push("", "## Settings", "");
  for (const [k, v] of Object.entries(report.settings)) out.push(`- ${k}: ${v}`);
  out.push("", "## Transports", "");
  for (const t of report.transports) out.push(`- \`${t.id}\`: ${t.label}`);
  out.push("", "## Goals", "");
  out.push(table(
    ["goal", "measured", "holds"],
    checkGoals(report).map((g) => [g.goal, g.measured, mark(g.ok)]),
  ));

  if (report.git.length) {
    out.push("", "## Git workloads: median ms", "");
    out.push(table(
      ["workload", ...ids],
      workloads.map((w) => [w, ...ids.map((id) => fmt(med(report, w, id)))]),
    ));
    const pairs: [string, string][] = [
      ["signet-ssh", "openssh"],
      ["signet-ssh", "file"],
      ["signet-http", "nginx"],
      ["signet-http", "file"],
      ["openssh", "file"],
      ["nginx", "file"],
    ];
    const present = pairs.filter(([a, b]) => has(report, a) && has(report, b));
    out.push("", "## Git workloads: ratios of medians", "");
    out.push(table(
      ["workload", ...present.map(([a, b]) => `${a} / ${b}`)],
      workloads.map((w) => [
        w,
        ...present.map(([a, b]) => fmtRatio(med(report, w, a) / med(report, w, b))),
      ]),
    ));
    out.push(...renderClientFloor(report, workloads, ids));
    out.push("", "## Commands", "");
    for (const c of report.commands) out.push(`- \`${c.id}\`: \`${c.command}\``);
    out.push("", "## Raw samples (ms, in run order)", "");
    out.push(table(
      ["workload", "transport", "samples"],
      report.git.map((
        g,
      ) => [g.workload, g.transport, g.samples.map((s) => s.toFixed(1)).join(", ")]),
    ));
  }

  if (report.parallel.length) {
    out.push("", "## Parallel clones (`git clone --bare` of the small repo, all at once)", "");
    out.push(
      "Memory is sampled every 100 ms from /proc: RSS of the main server process, and the sum of " +
        "PSS over its whole process tree (including the git processes it starts). The server has " +
        "served every earlier workload by then; its RSS at the start of this phase shows what " +
        "that left behind (allocator high-water marks, e.g. after 50 MB pushes). Of the RSS peak, " +
        "the anonymous part is heaps and buffers; the rest is mapped files (the executable, " +
        "libraries, the database). With several " +
        "rounds (transport order rotated), the time is the median round's, failures are summed " +
        "and memory peaks are the highest of any round. OpenSSH and nginx, which no goal judges " +
        "here, run only with `--parallel-baselines` (one round).",
      "",
    );
    const file = report.parallel.find((p) => p.transport === "file");
    out.push(table(
      [
        "transport",
        "clones",
        "failures",
        "total ms",
        "vs file://",
        "main RSS at start MB",
        "main RSS peak MB",
        "of which anonymous MB",
        "tree PSS peak MB",
        "max procs",
        "rounds ms",
      ],
      report.parallel.map((p) => [
        p.transport,
        String(p.clones),
        String(p.failures),
        fmt(p.totalMs),
        file ? fmtRatio(p.totalMs / file.totalMs) : "n/a",
        p.memory ? fmt(p.memory.startRss / 1024) : "n/a",
        p.memory ? fmt(p.memory.mainRss / 1024) : "n/a",
        p.memory ? fmt(p.memory.mainAnon / 1024) : "n/a",
        p.memory ? fmt(p.memory.treePss / 1024) : "n/a",
        p.memory ? String(p.memory.maxProcesses) : "n/a",
        p.rounds ? p.rounds.map((ms) => fmt(ms)).join(", ") : "",
      ]),
    ));
    for (const p of report.parallel.filter((p) => p.firstError)) {
      out.push("", `First failure on ${p.transport}:`, "", "```", p.firstError!.trim(), "```");
    }
  }

  if (report.cli) out.push("", ...renderCliStartup(report.cli));
  if (report.api) out.push("", ...renderApi(report.api));
  out.push("");
  return out.join("\n");
}

/**
 * Client-side CPU per workload, and the floor the client's own helper sets under the
 * `<= N x file://` goals: (file:// median + the helper's no-op CPU) / file:// median.
 */
function renderClientFloor(report: BenchReport, workloads: string[], ids: string[]): string[] {
  if (!workloads.some((w) => ids.some((id) => Number.isFinite(cpu(report, w, id))))) return [];
  const helpers = Object.entries(report.helpers ?? {});
  const out = ["", "## Client-side CPU and the floor it sets (ms, medians)", ""];
  out.push(
    "CPU of the client's processes alone (git and its `ssh` or `git-remote-http` helper, from " +
      "getrusage), the server excluded; for `file://` it includes the local `git upload-pack`. " +
      `Helper no-op CPU: ${
        helpers.map(([id, ms]) => `${id} ${fmt(ms)} ms`).join(", ") || "not measured"
      } (\`ssh … help\`: start-up, key exchange, authentication, one command; ` +
      "`git remote-http` starting and exiting). Floor = (file:// median + that CPU) / file:// " +
      "median: the ratio a server costing nothing would reach, since the work `file://` does " +
      "still runs (on the server) and the helper's CPU comes on top, in sequence with it.",
    "",
  );
  out.push(table(
    ["workload", ...ids.map((id) => `${id} CPU`), ...helpers.map(([id]) => `${id} floor`)],
    workloads.map((w) => [
      w,
      ...ids.map((id) => fmt(cpu(report, w, id))),
      ...helpers.map(([id]) => fmtRatio(clientFloor(report, w, id))),
    ]),
  ));
  return out;
}

function renderApi(api: ApiResults): string[] {
  const out: string[] = ["## API", ""];
  out.push(
    `Load generator: ${api.generator}. Each row is one run of ${api.durationS} s with ` +
      `${api.connections} connections, except the bare reference and GET bot: rounds of ` +
      `${
        getRoundSeconds(api.durationS)
      } s, the two loads of a round back to back (see below). The first ` +
      "measured run on each registry endpoint and server (the bare reference included) follows " +
      `an untimed run of the same load (${GET_WARM_UP_SECONDS} s for GET, ` +
      `${SEARCH_WARM_UP_SECONDS} s for search), so the rows show a warm server: its code ` +
      "compiled, the database pages it reads mapped.",
    "",
  );
  const rows = api.rows.map((r) => [
    r.name,
    fmt(r.rps),
    fmt(r.p50),
    fmt(r.p99),
    String(r.errors),
    r.note ?? "",
  ]);
  out.push(table(["endpoint", "req/s", "p50 ms", "p99 ms", "errors", "note"], rows));
  if (api.registry) {
    out.push(
      "",
      `Raw WebCrypto Ed25519 importKey+verify in one Deno process: ${
        fmt(api.registry.rawVerifyPerSec)
      }/s one after another (the goal's reference); ${
        fmt(api.registry.rawVerifyConcurrentPerSec)
      }/s with 16 in flight. Deno runs each verify on its blocking thread pool, so one at a time ` +
        "is bound by the hand-off between threads as much as by the CPU; Signet's server verifies " +
        "the requests in flight the same way, off its main thread, which the rest of a create " +
        "keeps busy (see below).",
    );
    const main = api.registry.mutationMainThread;
    if (main) {
      out.push(
        "",
        `During the verified-create load, Signet's main thread was busy ${
          (main.busyShare * 100).toFixed(0)
        }% of the time: ${
          fmt(main.usPerCreate)
        } µs of its CPU per create. That thread runs every ` +
          "create's HTTP handling, parsing, policy checks and SQLite writes (one writer); near 100%, it " +
          "is what bounds the rate.",
      );
    }
    const b = api.registry.createBreakdown;
    if (b) out.push(...renderCreateBreakdown(b, api.registry.rawVerifyPerSec));
    out.push(...renderGetRounds(api.registry.getRounds));
  }
  return out;
}

function renderGetRounds(rounds: GetRound[]): string[] {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return [
    "",
    "### GET bot against the bare endpoint, round by round",
    "",
    "Each round loads the bare endpoint, then at once GET bot; the goal takes the median of the " +
    "rounds' ratios. CPU per request is the bare server's process, and Signet's busiest thread " +
    "(the registry's connection guard, which answers stored bots itself); machine busy is the " +
    "share of both cores in use, wrk's included.",
    "",
    table(
      [
        "round",
        "bare req/s",
        "GET req/s",
        "GET / bare",
        "bare µs/req",
        "guard µs/req",
        "Signet main busy",
        "machine busy (bare, GET)",
      ],
      rounds.map((r, i) => [
        String(i + 1),
        fmt(r.bareRps),
        fmt(r.getRps),
        pct(r.getRps / r.bareRps),
        fmt(r.bareUsPerRequest),
        fmt(r.guardUsPerRequest),
        pct(r.signetMainShare),
        `${pct(r.machineBusyBare)}, ${pct(r.machineBusyGet)}`,
      ]),
    ),
  ];
}

function renderCreateBreakdown(b: CreateBreakdown, rawVerifyPerSec: number): string[] {
  const budget = 1e6 / (rawVerifyPerSec * 0.4);
  const row = (part: string, us: number, what: string) => [part, fmt(us), what];
  return [
    "",
    "### Where a verified create's CPU goes",
    "",
    `In one process, no sockets, on a copy of the seeded database (\`bench/load/create_breakdown.ts\`, ` +
    `${b.creates} creates per step, 16 at a time). The 40% goal allows ${fmt(budget)} µs per ` +
    "create in all, HTTP included.",
    "",
    table(["part", "µs per create", "what it is"], [
      row("whole registry handler", b.handlerUs, "Request in, 201 Response out"),
      row(
        "request front",
        b.frontUs,
        "routing, middleware, strict JSON parse, schema validation (a body without proof, refused)",
      ),
      row(
        "the mutation",
        b.mutationUs,
        "mutateBot: verify, policy, audit log, nonce, stored writes",
      ),
      row(
        "proof verification",
        b.verifyUs,
        "JCS, JWS checks, nonce MAC, Ed25519 importKey + verify",
      ),
      row("stored writes", b.storeUs, "record, key, capability and search index rows"),
    ]),
    "",
    "A bare `Deno.serve` doing only the JSON parse, one importKey + verify and these stored writes " +
    "(`bench/load/create_ceiling.ts`, not run by the bench) reached 28–35% of the raw rate under " +
    'this load on this machine: see docs/decisions/performance-and-bench.md, "Verified creates: the ceiling on two cores".',
  ];
}
