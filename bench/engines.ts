/**
 * The storage-engine comparison alone, for working on it: `deno run -A bench/engines.ts [--bots N]
 * [--seconds S] [--rounds R] [--connections C]`. Starts one Signet on its embedded SQLite file and
 * one on a fresh database of a throwaway PostgreSQL cluster, seeds both with the same bots, and
 * runs the registry loads of the full bench's "Storage engines" section (GET bot, search, verified
 * creates, rounds alternating between the engines); prints the medians. With `--thin`, GET bot also
 * runs on the thinnest reader of each engine (bench/load/thin_bot_reader.ts: the guard's own row
 * sources behind a raw HTTP/1.1 listener, nothing else), in rounds alternating with Signet's, so the
 * engines' ratio can be read without Signet's own work. Writes no report: the full bench (`deno task
 * bench`) is the one that records results.
 */
import { parseArgs } from "node:util";
import { fmt, median, progress } from "./util.ts";
import { startSignet } from "./signet.ts";
import {
  BENCH_POSTGRES_SETTINGS,
  ENGINES,
  getBotLoad,
  runEngineRegistry,
  seedBots,
} from "./engine_workloads.ts";
import { startThinReader } from "./api_workloads.ts";
import { startPostgres } from "../testing/postgres.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    bots: { type: "string", default: "100000" },
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "2" },
    connections: { type: "string", default: "16" },
    mutations: { type: "string", default: "12000" },
    "slow-log": { type: "string" },
    thin: { type: "boolean", default: false },
  },
});
const bots = Number(values.bots);
const seconds = Number(values.seconds);
const work = await Deno.makeTempDir({ prefix: "signet-engines-" });
const cluster = await startPostgres({ settings: BENCH_POSTGRES_SETTINGS });
const postgresUrl = await cluster.createDatabase();
let logFile = "";
if (values["slow-log"]) {
  // PostgreSQL logs every statement slower than this (ms), with its plan; the last 30 such lines
  // are printed at the end.
  const { default: pg } = await import("postgres");
  const admin = pg(postgresUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`ALTER SYSTEM SET log_min_duration_statement = ${Number(values["slow-log"])}`);
  await admin.unsafe("LOAD 'auto_explain'");
  await admin.unsafe("ALTER SYSTEM SET session_preload_libraries = 'auto_explain'");
  await admin.unsafe(
    `ALTER SYSTEM SET auto_explain.log_min_duration = ${Number(values["slow-log"])}`,
  );
  await admin.unsafe("SELECT pg_reload_conf()");
  const [{ d }] = await admin.unsafe("SELECT current_setting('data_directory') AS d");
  logFile = `${d}/../log`;
  await admin.end();
}
const sqlite = await startSignet(`${work}/sqlite-data`);
const postgres = await startSignet(`${work}/pg-data`, {
  SERVICE_DATABASE_URL: cluster.overSocket(postgresUrl),
});
try {
  progress(`seeding ${bots} bots on SQLite`);
  await seedBots(sqlite, `${work}/sqlite-data/signet.db`, work, bots);
  const r = await runEngineRegistry({ sqlite, postgres }, postgresUrl, {
    seconds,
    getSeconds: seconds,
    connections: Number(values.connections),
    bots,
    workDir: work,
    rounds: Number(values.rounds),
    mutations: Number(values.mutations),
  });
  const line = (name: string, pick: (e: typeof ENGINES[number]) => number[]) => {
    const [s, p] = ENGINES.map((e) => median(pick(e)));
    console.log(
      `${name.padEnd(28)} sqlite ${fmt(s).padStart(8)}  postgres ${fmt(p).padStart(8)}  ${
        (p / s).toFixed(2)
      }x  (${ENGINES.map((e) => pick(e).map(fmt).join("/")).join(" | ")})`,
    );
  };
  line("GET bot req/s", (e) => r.get[e].map((x) => x.rps));
  line("search req/s", (e) => r.search[e].map((x) => x.rps));
  line("search p99 ms", (e) => r.search[e].map((x) => x.p99));
  line("creates req/s", (e) => r.creates[e].map((x) => x.rps));
  line("creates p99 ms", (e) => r.creates[e].map((x) => x.p99));
  console.log(`rss KiB: sqlite ${r.rssKb.sqlite}, postgres ${r.rssKb.postgres}`);
  if (values.thin) {
    const databases = {
      sqlite: `${work}/sqlite-data/signet.db`,
      postgres: cluster.overSocket(postgresUrl),
    };
    const thin = await Promise.all(ENGINES.map((e) => startThinReader(e, databases[e])));
    try {
      const opts = { seconds, connections: Number(values.connections), bots, workDir: work };
      const targets = { sqlite, postgres, "thin sqlite": thin[0], "thin postgres": thin[1] };
      const rps: Record<string, number[]> = {};
      for (const t of Object.values(targets)) await getBotLoad(t, opts, bots, 1);
      const names = Object.keys(targets) as (keyof typeof targets)[];
      for (let round = 0; round < Number(values.rounds); round++) {
        // Rotated every round, so no setup always follows the same one.
        const order = names.map((_, i) => names[(i + round) % names.length]);
        for (const n of order) {
          (rps[n] ??= []).push((await getBotLoad(targets[n], opts, bots, seconds)).rps);
        }
      }
      const pairs = [
        ["Signet", "postgres", "sqlite"],
        ["thin", "thin postgres", "thin sqlite"],
      ] as const;
      for (const [label, pg, sq] of pairs) {
        const ratios = rps[pg].map((p, i) => p / rps[sq][i]);
        console.log(
          `GET bot, ${label.padEnd(6)}: postgres / sqlite ${median(ratios).toFixed(2)}x (rounds ${
            ratios.map((x) => x.toFixed(2)).join(", ")
          }; req/s ${rps[sq].map(fmt).join("/")} | ${rps[pg].map(fmt).join("/")})`,
        );
      }
    } finally {
      for (const t of thin) await t.stop();
    }
  }
  if (logFile) {
    const slow = (await Deno.readTextFile(logFile)).split("\n").filter((l) =>
      l.includes("duration:")
    );
    console.log(`${slow.length} slow statements; the last 30:`);
    for (const l of slow.slice(-30)) console.log(l.slice(0, 400));
  }
} finally {
  await sqlite.stop();
  await postgres.stop();
  await cluster.destroy();
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
