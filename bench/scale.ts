/**
 * The scale mode (`deno task bench --scale [--quick] [--out FILE]`): the registry at 1,000,000 bots
 * on both engines, a separate and longer run than the normal bench. One Signet on its embedded
 * SQLite file and one on a fresh database of a throwaway PostgreSQL cluster are seeded to 100,000
 * bots, measured (GET bot and search, rounds alternating between the engines), seeded on to
 * 1,000,000 and measured again, so each engine's 1M figures compare with its own 100k figures
 * taken in the same run. Writes bench/SCALE.md (full mode); `--quick` runs 2,000 and 20,000 bots
 * and writes nothing unless `--out` is given.
 */
import { fmt, fmtRatio, median, progress } from "./util.ts";
import { type SignetServer, startSignet } from "./signet.ts";
import type { ApiOptions, ApiRow } from "./api_workloads.ts";
import {
  alternate,
  BENCH_POSTGRES_SETTINGS,
  type EngineName,
  ENGINES,
  getBotLoad,
  type PerEngine,
  postgresValue,
  rssKb,
  searchLoad,
  seedBots,
  serverVersion,
  spread,
} from "./engine_workloads.ts";
import { startPostgres } from "../testing/postgres.ts";
import { cmd } from "./util.ts";

/** Everything measured at one registry size. */
interface Step {
  bots: number;
  /** Seconds each engine took to seed this step's new bots. */
  seedSeconds: Record<EngineName, number>;
  get: PerEngine<ApiRow>;
  search: PerEngine<ApiRow>;
  /** Signet's RSS (KiB) after the step's loads, and the database's size on disk (bytes). */
  rssKb: Record<EngineName, number>;
  databaseBytes: Record<EngineName, number>;
}

const SEARCH_P99_LIMIT_MS = 25;
/** GET bot at the largest size may be at most this much below the 100k figure. */
const GET_DROP_LIMIT = 0.2;

async function databaseBytes(engine: EngineName, where: string): Promise<number> {
  if (engine === "sqlite") {
    let n = 0;
    for (const suffix of ["", "-wal"]) {
      n += await Deno.stat(`${where}${suffix}`).then((s) => s.size, () => 0);
    }
    return n;
  }
  return Number(await postgresValue(where, "SELECT pg_database_size(current_database())"));
}

/** Runs the scale mode; returns the exit code. */
export async function runScale(opts: { quick: boolean; out?: string }): Promise<number> {
  const sizes = opts.quick ? [2_000, 20_000] : [100_000, 1_000_000];
  const rounds = opts.quick ? 1 : 4;
  const api: ApiOptions = {
    seconds: opts.quick ? 1 : 3,
    connections: 16,
    bots: sizes[0],
    workDir: "",
  };
  const getSeconds = opts.quick ? 1 : 2;
  const started = new Date();
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  const shm = await cmd("df", ["-B1", "--output=avail", "/dev/shm"]);
  const onTmpfs = Number(shm.stdout.trim().split("\n").pop()) > 8e9;
  const work = await Deno.makeTempDir({
    dir: onTmpfs ? "/dev/shm" : undefined,
    prefix: "signet-scale-",
  });
  api.workDir = work;
  const stops: (() => Promise<void>)[] = [];
  const steps: Step[] = [];
  let postgresVersion = "";
  try {
    progress("starting a throwaway PostgreSQL cluster and two Signets");
    const cluster = await startPostgres({ settings: BENCH_POSTGRES_SETTINGS });
    stops.push(() => cluster.destroy());
    const postgresUrl = await cluster.createDatabase();
    const servers: Record<EngineName, SignetServer> = {
      sqlite: await startSignet(`${work}/sqlite-data`),
      postgres: await startSignet(`${work}/pg-data`, {
        SERVICE_DATABASE_URL: cluster.overSocket(postgresUrl),
      }),
    };
    for (const engine of ENGINES) stops.push(() => servers[engine].stop());
    const where: Record<EngineName, string> = {
      sqlite: `${servers.sqlite.dataDir}/signet.db`,
      postgres: postgresUrl,
    };
    postgresVersion = await serverVersion(postgresUrl);
    let seeded = 0;
    for (const bots of sizes) {
      const seedSeconds = { sqlite: 0, postgres: 0 };
      for (const engine of ENGINES) {
        progress(`seeding ${engine} from ${seeded} to ${bots} bots`);
        seedSeconds[engine] = await seedBots(
          servers[engine],
          where[engine],
          work,
          bots - seeded,
          seeded,
        );
        progress(`  ${seedSeconds[engine].toFixed(1)} s`);
      }
      seeded = bots;
      const at = { ...api, bots };
      for (const engine of ENGINES) {
        await getBotLoad(servers[engine], at, bots, 1);
        await searchLoad(servers[engine], at, 5);
      }
      const get = await alternate(
        rounds,
        (engine) => getBotLoad(servers[engine], at, bots, getSeconds),
      );
      const search = await alternate(
        rounds,
        (engine) => searchLoad(servers[engine], at, at.seconds),
      );
      steps.push({
        bots,
        seedSeconds,
        get,
        search,
        rssKb: { sqlite: rssKb(servers.sqlite.pid), postgres: rssKb(servers.postgres.pid) },
        databaseBytes: {
          sqlite: await databaseBytes("sqlite", where.sqlite),
          postgres: await databaseBytes("postgres", where.postgres),
        },
      });
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((e) => console.error(`stop: ${e}`));
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
  const finished = new Date();
  const goals = scaleGoals(steps);
  const text = renderScale({
    started,
    finished,
    quick: opts.quick,
    load,
    onTmpfs,
    postgresVersion,
    rounds,
    getSeconds,
    seconds: api.seconds,
    steps,
    goals,
  });
  const out = opts.out ?? (opts.quick ? null : new URL("./SCALE.md", import.meta.url).pathname);
  if (out) {
    await Deno.writeTextFile(out, text);
    await cmd(Deno.execPath(), ["fmt", "--quiet", out]);
    progress(`wrote ${out}`);
  }
  for (const g of goals) console.log(`${g.ok ? "ok  " : "MISS"} ${g.goal}: ${g.measured}`);
  const errors = steps.flatMap((s) =>
    ENGINES.flatMap((e) => [...s.get[e], ...s.search[e]].map((r) => r.errors))
  ).reduce((a, b) => a + b, 0);
  if (errors) console.error(`${errors} requests failed`);
  return errors ? 1 : 0;
}

interface ScaleGoal {
  goal: string;
  measured: string;
  ok: boolean;
}

function scaleGoals(steps: Step[]): ScaleGoal[] {
  if (steps.length < 2) return [];
  const [small, big] = [steps[0], steps[steps.length - 1]];
  const goals: ScaleGoal[] = [];
  for (const engine of ENGINES) {
    const p99 = median(big.search[engine].map((r) => r.p99));
    goals.push({
      goal: `${engine}: search p99 < ${SEARCH_P99_LIMIT_MS} ms at ${big.bots.toLocaleString("en")}`,
      measured: `${fmt(p99)} ms`,
      ok: p99 < SEARCH_P99_LIMIT_MS,
    });
    const r = median(big.get[engine].map((x) => x.rps)) /
      median(small.get[engine].map((x) => x.rps));
    goals.push({
      goal: `${engine}: GET bot at ${big.bots.toLocaleString("en")} within ${
        GET_DROP_LIMIT * 100
      }% of ${small.bots.toLocaleString("en")}`,
      measured: `${fmtRatio(r)} of the ${small.bots.toLocaleString("en")} figure`,
      ok: r >= 1 - GET_DROP_LIMIT,
    });
  }
  return goals;
}

function renderScale(r: {
  started: Date;
  finished: Date;
  quick: boolean;
  load: string;
  onTmpfs: boolean;
  postgresVersion: string;
  rounds: number;
  getSeconds: number;
  seconds: number;
  steps: Step[];
  goals: ScaleGoal[];
}): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const table = (header: string[], rows: string[][]) =>
    [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
  const cell = (xs: number[]) => {
    const s = spread(xs);
    return xs.length > 1 ? `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})` : fmt(s.median);
  };
  const mb = (n: number) => fmt(n / (1024 * 1024));
  const out = [
    `# Registry at scale${r.quick ? " (--quick)" : ""}`,
    "",
    `Generated by \`deno task bench --scale${
      r.quick ? " --quick" : ""
    }\` on ${r.started.toISOString()} (${
      ((r.finished.getTime() - r.started.getTime()) / 60000).toFixed(1)
    } min). Load average ` +
    `at start: ${r.load}. Machine: ${navigator.hardwareConcurrency} cores; the servers, the ` +
    "PostgreSQL cluster and wrk share them.",
    "",
    "One Signet on its embedded SQLite file (data dir on " +
    `${r.onTmpfs ? "tmpfs" : "disk"}) and one on a fresh database of a throwaway PostgreSQL ` +
    `${r.postgresVersion} cluster (testing/postgres.ts: fsync, synchronous_commit and ` +
    `full_page_writes off; shared_buffers ${BENCH_POSTGRES_SETTINGS.shared_buffers}; data on ` +
    "disk; Signet connects over its Unix-domain socket), seeded by bench/load/seed_registry.ts (SQLite " +
    "through storeBot; PostgreSQL through its bench-only bulk path, the same rows as multi-row " +
    "INSERTs, then VACUUM (ANALYZE)). At each size: untimed loads (1 s GET, 5 s search), then " +
    `${r.rounds} rounds of GET bot (${r.getSeconds} s) and of search (${r.seconds} s, the ` +
    "normal bench's mix) per engine, alternating between the engines, 16 connections (wrk, 1 " +
    "thread). Cells: median (lowest–highest round). RSS is Signet's process after the loads " +
    "(for SQLite it includes the database pages it maps; PostgreSQL's own processes are not " +
    "counted).",
    "",
    "## Goals",
    "",
    table(
      ["goal", "measured", "holds"],
      r.goals.map((g) => [g.goal, g.measured, g.ok ? "yes" : "**no**"]),
    ),
    "",
    "## Figures",
    "",
    table(
      [
        "bots",
        "engine",
        "GET bot req/s",
        "GET p99 ms",
        "search req/s",
        "search p50 ms",
        "search p99 ms",
        "Signet RSS MB",
        "database MB",
        "seeding s",
      ],
      r.steps.flatMap((s) =>
        ENGINES.map((e) => [
          s.bots.toLocaleString("en"),
          e,
          cell(s.get[e].map((x) => x.rps)),
          cell(s.get[e].map((x) => x.p99)),
          cell(s.search[e].map((x) => x.rps)),
          cell(s.search[e].map((x) => x.p50)),
          cell(s.search[e].map((x) => x.p99)),
          fmt(s.rssKb[e] / 1024),
          mb(s.databaseBytes[e]),
          s.seedSeconds[e].toFixed(0),
        ])
      ),
    ),
    "",
  ];
  return out.join("\n");
}
