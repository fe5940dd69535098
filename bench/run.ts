/**
 * `deno task bench [--quick] [--out FILE] [--skip-git] [--skip-api] [--workloads a,b] [--keep]
 * [--parallel-baselines] [--skip-postgres] [--skip-cluster | --only-cluster]`:
 * Signet side by side with OpenSSH + git-shell, nginx + fcgiwrap + git http-backend and file://,
 * in one run on one machine; writes bench/RESULTS.md (full mode) with medians and ratios.
 * A second Signet on a throwaway PostgreSQL cluster runs the git workloads with the others and the
 * registry workloads in rounds alternating with the SQLite one ("Storage engines" in RESULTS.md;
 * `--skip-postgres` leaves it out). Last, two instances behind nginx against one instance
 * ("Cluster", bench/cluster_workloads.ts; `--skip-cluster` leaves it out, `--only-cluster` runs it
 * alone and prints its section).
 * `deno task bench --scale [--quick]`: the registry at 1,000,000 bots on both engines instead
 * (bench/scale.ts; writes bench/SCALE.md).
 * `deno task bench --pages [--quick] [--out FILE] [--into bench/RESULTS.md]`: the public registry
 * pages alone, at 100,000 bots: bytes, server time, first contentful paint (bench/pages.ts; prints
 * its section, and puts it into the file `--into`).
 * `deno task bench --browse [--quick]`: the repository browser against cgit alone (bench/browse.ts;
 * writes its section of bench/RESULTS.md). A full run keeps the sections these two wrote
 * (`CARRIED_SECTIONS`) as they were.
 * It exits non-zero only when something fails (a clone, a server), never because of timings.
 * (Over 400 lines on purpose: it is the one script that orders the phases, start to finish; each
 * phase's work lives in its own module.)
 */
import { parseArgs } from "node:util";
import { cmd, cmdOk, exists, gitClientEnv, progress, sectionOf } from "./util.ts";
import { ensurePackages } from "./packages.ts";
import { generateRepos, mirrorInto, type RepoSizes } from "./repos.ts";
import { REPO_NAMES, type Transport } from "./transport.ts";
import { ensureGitAccount } from "./baselines/account.ts";
import { startSshd } from "./baselines/sshd.ts";
import { startNginx } from "./baselines/nginx.ts";
import { fileTransport } from "./baselines/file.ts";
import { startThin } from "./baselines/thin.ts";
import {
  setupSignetRepos,
  signetHttp,
  type SignetServer,
  signetSsh,
  signetSshUp,
  startSignet,
} from "./signet.ts";
import {
  type ClientContext,
  type GitSample,
  helperCpu,
  medianParallel,
  parallelClones,
  type ParallelResult,
  runGitWorkloads,
  workloadCommands,
} from "./git_workloads.ts";
import { type ApiResults, registryUp, runApiWorkloads } from "./api_workloads.ts";
import { getRoundSeconds, runRegistryWorkloads } from "./registry_workloads.ts";
import {
  BENCH_POSTGRES_SETTINGS,
  type EngineRegistry,
  runEngineRegistry,
  seedBots,
  serverVersion,
} from "./engine_workloads.ts";
import {
  type ClusterOptions as ClusterWorkloadOptions,
  type ClusterResults,
  runClusterWorkloads,
} from "./cluster_workloads.ts";
import { startPostgres, type TestPostgres } from "../testing/postgres.ts";
import { runScale } from "./scale.ts";
import { PAGES_HEADING, runPages } from "./pages.ts";
import {
  type BenchReport,
  checkClusterGoals,
  checkEngineGoals,
  checkGoals,
  goalRecord,
  readPreviousGoals,
} from "./results.ts";
import { BROWSE_HEADING, browseMain } from "./browse.ts";
import { renderCluster, renderReport } from "./report.ts";
import { type CliStartup, measureCliStartup } from "./cli_startup.ts";
import { makeKey, type TestKey } from "../testing/accounts.ts";
import { type Breakdown, measureBreakdown } from "./breakdown.ts";
import {
  type IdleMemory,
  measureAfterLoad,
  measureIdleMemory,
  type MemoryAfterLoad,
} from "./memory.ts";

/**
 * Sections of RESULTS.md that runs of their own write (`--browse`, `--pages --into`): a full run
 * keeps them as they were, each with its own date.
 */
const CARRIED_SECTIONS = [BROWSE_HEADING, PAGES_HEADING];

/** What the bare endpoint of the memory-at-rest comparison serves (its size does not matter). */
const IDLE_JSON = '{"ok":true}';

interface Mode {
  sizes: RepoSizes;
  bigPushBytes: number;
  runs: number;
  warmup: number;
  parallel: number;
  /** Rounds of the parallel clones (transport order rotated each round; the median is kept). */
  parallelRounds: number;
  apiSeconds: number;
  apiConnections: number;
  bots: number;
  /** Back-to-back rounds of bare endpoint vs GET bot. */
  rounds: number;
  /** Rounds per setup of the cluster phase: GET bot, and parallel clones over each transport. */
  clusterRounds: number;
  clusterCloneRounds: number;
  /** Pre-signed mutations for each engine's create rounds (storage engines). */
  mutations: number;
  /**
   * Pre-signed mutations for the registry workloads' create load and the store-mode ceiling, which
   * share them: enough that the ceiling (the faster) does not run out before its load ends.
   */
  registryMutations: number;
  /** Creates per step of the in-process create breakdown. */
  breakdownCreates: number;
  /** Timed rounds of the CLI start-up commands. */
  cliRounds: number;
  /** Runs of each fixed-cost workload in the per-phase breakdown. */
  breakdownRuns: number;
}

const MB = 1024 * 1024;
/** Transports whose parallel clones a goal judges; they run every round. */
const PARALLEL_GOAL_TRANSPORTS = new Set(["file", "signet-ssh", "signet-http"]);
/** Each setting side by side: [the full run, the --quick run]; `files`, `commits` and `blobBytes` are the repository sizes. */
const SETTINGS = {
  files: [2000, 200],
  commits: [200, 20],
  blobBytes: [20 * MB, 2 * MB],
  bigPushBytes: [20 * MB, 2 * MB],
  runs: [5, 2],
  warmup: [1, 1],
  parallel: [50, 10],
  parallelRounds: [3, 1],
  apiSeconds: [3, 1],
  apiConnections: [16, 8],
  bots: [100_000, 2_000],
  rounds: [4, 1],
  clusterRounds: [3, 1],
  clusterCloneRounds: [2, 1],
  mutations: [10_000, 1_000],
  registryMutations: [24_000, 2_000],
  breakdownCreates: [1_000, 200],
  cliRounds: [21, 5],
  breakdownRuns: [11, 3],
} satisfies Record<keyof RepoSizes | Exclude<keyof Mode, "sizes">, [number, number]>;

/** The settings of the full run (`quick` false) or of `--quick`. */
function modeSettings(quick: boolean): Mode {
  const pick = Object.fromEntries(
    Object.entries(SETTINGS).map(([name, values]) => [name, values[quick ? 1 : 0]]),
  ) as Record<keyof typeof SETTINGS, number>;
  const { files, commits, blobBytes, ...rest } = pick;
  return { sizes: { files, commits, blobBytes }, ...rest };
}

/** The 1-minute load average. */
async function loadAverage(): Promise<string> {
  return (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
}

async function machineInfo(): Promise<Record<string, string>> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/^model name\s*:\s*(.*)$/m)?.[1];
  const mem = (await Deno.readTextFile("/proc/meminfo")).match(/^MemTotal:\s*(\d+)/m)?.[1];
  const os = (await Deno.readTextFile("/etc/os-release")).match(/^PRETTY_NAME="(.*)"$/m)?.[1];
  const first = async (p: string, a: string[]) => {
    const r = await cmd(p, a);
    return (r.stdout || r.stderr).trim().split("\n")[0];
  };
  return {
    cpu: `${cpu ?? "unknown"} x ${navigator.hardwareConcurrency} cores`,
    memory: `${Math.round(Number(mem) / 1024)} MB`,
    os: `${os ?? "unknown"}, kernel ${Deno.osRelease()}`,
    deno: Deno.version.deno,
    git: await first("git", ["--version"]),
    openssh: await first("ssh", ["-V"]),
    nginx: (await first("/usr/sbin/nginx", ["-v"])).replace(/^nginx version: /, ""),
    "load average at start": (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3)
      .join(" "),
  };
}

async function freeBytes(path: string): Promise<number> {
  const r = await cmd("df", ["-B1", "--output=avail", path]);
  return Number(r.stdout.trim().split("\n").pop());
}

/** The registry loads' settings from the run's mode (the engines and cluster phases share them). */
function registryLoads(mode: Mode, work: string) {
  return {
    seconds: mode.apiSeconds,
    getSeconds: getRoundSeconds(mode.apiSeconds),
    connections: mode.apiConnections,
    bots: mode.bots,
    workDir: work,
    rounds: mode.rounds,
  };
}

/** The cluster phase's settings from the run's mode. */
function clusterOptions(
  mode: Mode,
  work: string,
  home: string,
  smallRepo: string,
  key: TestKey,
  postgres: TestPostgres | null,
): ClusterWorkloadOptions {
  return {
    ...registryLoads(mode, work),
    rounds: mode.clusterRounds,
    cloneRounds: mode.clusterCloneRounds,
    parallel: mode.parallel,
    smallRepo,
    home,
    key,
    postgres: postgres ?? undefined,
  };
}

/** Operations of the cluster phase that failed (wrk errors, failed clones). */
function clusterFailures(c: ClusterResults | null): number {
  if (!c) return 0;
  const all = [c.get, c.httpClones, c.sshClones].flatMap((r) => Object.values(r).flat());
  return all.reduce((n, r) => n + ("errors" in r ? r.errors : r.failures), 0);
}

/**
 * `--only-cluster`: the cluster phase alone (its repositories generated, its own PostgreSQL); prints
 * its section of the report, and writes it to `out` when given.
 */
async function onlyCluster(mode: Mode, out: string | undefined): Promise<number> {
  const work = await Deno.makeTempDir({ prefix: "signet-bench-cluster-" });
  const home = `${work}/home`;
  await Deno.mkdir(home);
  try {
    progress(`generating repositories in ${work}`);
    const generated = await generateRepos(`${work}/gen`, mode.sizes, home);
    const key = await makeKey("bench");
    const cluster = await runClusterWorkloads(
      clusterOptions(mode, work, home, generated.small, key, null),
      { dir: `${work}/clients`, home, bigPushBytes: mode.bigPushBytes },
    );
    const partial = { cluster } as BenchReport;
    const text = renderCluster(partial).join("\n").trim() + "\n";
    console.log(text);
    if (out) await Deno.writeTextFile(out, text);
    for (const g of checkClusterGoals(partial)) {
      console.log(`${g.ok ? "ok  " : "MISS"} ${g.goal}: ${g.measured}`);
    }
    return clusterFailures(cluster) ? 1 : 0;
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      out: { type: "string" },
      "skip-git": { type: "boolean", default: false },
      "skip-api": { type: "boolean", default: false },
      "skip-parallel": { type: "boolean", default: false },
      "parallel-baselines": { type: "boolean", default: false },
      workloads: { type: "string" },
      runs: { type: "string" },
      keep: { type: "boolean", default: false },
      disk: { type: "boolean", default: false },
      note: { type: "string", multiple: true },
      "skip-postgres": { type: "boolean", default: false },
      "skip-cluster": { type: "boolean", default: false },
      "only-cluster": { type: "boolean", default: false },
      scale: { type: "boolean", default: false },
      pages: { type: "boolean", default: false },
      into: { type: "string" },
      browse: { type: "boolean", default: false },
    },
  });
  if (values.scale) return await runScale({ quick: Boolean(values.quick), out: values.out });
  if (values.browse) return await browseMain({ quick: Boolean(values.quick), out: values.out });
  if (values.pages) {
    return await runPages({
      bots: values.quick ? 2_000 : 100_000,
      seconds: values.quick ? 1 : 3,
      loads: values.quick ? 5 : 15,
      out: values.out,
      into: values.into,
    });
  }
  const mode = modeSettings(Boolean(values.quick));
  if (values.runs) mode.runs = Number(values.runs);
  const started = new Date();
  if (Deno.uid() !== 0) {
    console.error("the bench must run as root: it installs packages and runs sshd as `git`");
    return 2;
  }
  await ensurePackages();
  if (values["only-cluster"]) return await onlyCluster(mode, values.out);
  const machine = await machineInfo();

  // Repositories and clones live on tmpfs unless --disk: a shared machine's disk stalls (others'
  // writeback) otherwise swamp the differences between transports. Same place for all of them.
  const onTmpfs = !values.disk && (await exists("/dev/shm")) && (await freeBytes("/dev/shm")) > 4e9;
  const work = await Deno.makeTempDir({
    dir: onTmpfs ? "/dev/shm" : undefined,
    prefix: "signet-bench-",
  });
  await Deno.chmod(work, 0o755);
  const home = `${work}/home`;
  await Deno.mkdir(home);
  const stops: (() => Promise<void>)[] = [];
  const notes: string[] = [...(values.note ?? [])];
  notes.push(
    `Repositories, clones and Signet's data dir on ${onTmpfs ? "tmpfs (/dev/shm)" : "disk"}.`,
  );
  const git: GitSample[] = [];
  const helpers: Record<string, number> = {};
  const parallel: ParallelResult[] = [];
  let api = null as ApiResults | null;
  let cli = null as CliStartup | null;
  let engines = null as EngineRegistry | null;
  let cluster = null as ClusterResults | null;
  let idleMemory = null as IdleMemory | null;
  let afterLoad = null as MemoryAfterLoad | null;
  let breakdown = [] as Breakdown[];
  let postgres = null as TestPostgres | null;
  let postgresInfo = "";
  const transports: Transport[] = [];
  const errors: string[] = [];
  /**
   * The 1-minute load average as each phase began: other tenants' load on a shared machine shows
   * here, and so does the bench's own (it stays high for a minute after the parallel clones).
   */
  const loads: string[] = [];
  /** Runs one phase; a failure is recorded (and fails the bench) but the report is still written. */
  const phase = async (name: string, fn: () => Promise<void>) => {
    // Its place in the list is taken at once: phases that overlap stay in the order they began.
    const slot = loads.push(name) - 1;
    const load = await loadAverage();
    const began = performance.now();
    try {
      await fn();
    } catch (err) {
      const msg = `${name} failed: ${err instanceof Error ? err.message : String(err)}`;
      progress(msg);
      errors.push(msg);
      notes.push(`**${msg.split("\n")[0]}**`);
    } finally {
      loads[slot] = `${name} ${load} (${((performance.now() - began) / 1000).toFixed(0)} s)`;
    }
  };
  // The phases that overlap others: awaited before the work dir goes, even after a failure.
  let atRest: Promise<void> = Promise.resolve();
  let rested: Promise<void> = Promise.resolve();
  try {
    // First, before any server of the bench has run. Memory wants idle servers, not an idle
    // machine: the 25 s it waits overlap generating the repositories and starting the baselines,
    // and it is over before anything is timed.
    atRest = phase("memory at rest", async () => {
      idleMemory = await measureIdleMemory(work, IDLE_JSON);
    });
    progress(`generating repositories in ${work}`);
    const generated = await generateRepos(`${work}/gen`, mode.sizes, home);
    const serve = async (id: string) => {
      const dir = `${work}/srv/${id}`;
      await Deno.mkdir(dir, { recursive: true, mode: 0o755 });
      await Deno.chmod(`${work}/srv`, 0o755);
      for (const name of REPO_NAMES) {
        const target = `${dir}/${name}.git`;
        await cmdOk("git", ["init", "-q", "--bare", "--initial-branch=main", target], {
          env: gitClientEnv(home),
        });
        await mirrorInto(name === "scratch" ? generated.small : generated[name], target, home);
      }
      return dir;
    };

    const key = await makeKey("bench");
    await Deno.chmod(key.privatePath.replace(/\/[^/]+$/, ""), 0o755);
    transports.push(fileTransport(await serve("file")));

    // A baseline that cannot start (e.g. an existing `git` account with another shell) is left
    // out with a note and counts as a failure; the other transports are still measured.
    await phase("OpenSSH and nginx baselines", async () => {
      const account = await ensureGitAccount();
      /** Starts baseline `id` in `<work>/<id>` over its own copy of the repositories. */
      const baseline = async (
        label: string,
        id: string,
        start: (dir: string, reposDir: string) => Promise<Transport>,
      ) => {
        progress(`starting ${label} baseline`);
        await Deno.mkdir(`${work}/${id}`, { mode: 0o755 });
        const transport = await start(`${work}/${id}`, await serve(id));
        stops.push(() => transport.server!.stop());
        transports.push(transport);
      };
      await baseline(
        "OpenSSH",
        "openssh",
        (dir, reposDir) => startSshd({ dir, reposDir, account, clientKey: key }),
      );
      await baseline(
        "nginx",
        "nginx",
        (dir, reposDir) => startNginx({ dir, reposDir, account, fcgiChildren: 16 }),
      );
    });

    progress("starting Signet");
    const signet = await startSignet(`${work}/signet-data`);
    stops.push(() => signet.stop());
    // The bench user signs in with the same key the baselines accept.
    const signetAccount = await setupSignetRepos(signet, generated, generated.small, home, key);
    if (await signetSshUp(signet)) transports.push(signetSsh(signet, signetAccount));
    else notes.push("Signet's SSH server is not available in this build: SSH rows are missing.");
    transports.push(signetHttp(signet, signetAccount));

    // The stack's limit: the thinnest server on Signet's stack, for the fixed-cost workloads.
    await phase("the stack's limit", async () => {
      progress("starting the thin server (the stack's limit)");
      const root = `${work}/thin-repos`;
      await Deno.mkdir(`${work}/thin`, { mode: 0o755 });
      await Deno.mkdir(root, { mode: 0o755 });
      for (const id of ["thin-ssh", "thin-http"]) {
        await Deno.rename(await serve(id), `${root}/${id}`);
      }
      const thin = await startThin({ dir: `${work}/thin`, reposRoot: root, clientKey: key });
      stops.push(() => thin[0].server!.stop());
      transports.push(...thin);
    });

    // The same server on PostgreSQL: one throwaway cluster for the run, a fresh database per
    // server; its transports run interleaved with the others in the git workloads.
    let signetPg = null as SignetServer | null;
    let postgresUrl = "";
    if (!values["skip-postgres"]) {
      await phase("PostgreSQL Signet", async () => {
        progress("starting a throwaway PostgreSQL cluster and a Signet on it");
        const pg = postgres = await startPostgres({ settings: BENCH_POSTGRES_SETTINGS });
        stops.push(() => pg.destroy());
        postgresInfo = `${await serverVersion(pg.url())}, a throwaway local cluster ` +
          "(testing/postgres.ts: fsync, synchronous_commit and full_page_writes off, " +
          `shared_buffers ${BENCH_POSTGRES_SETTINGS.shared_buffers}; data on disk), over its ` +
          "Unix-domain socket, sharing the two cores";
        postgresUrl = await pg.createDatabase();
        const server = await startSignet(`${work}/signet-pg-data`, {
          SERVICE_DATABASE_URL: pg.overSocket(postgresUrl),
        });
        stops.push(() => server.stop());
        const account = await setupSignetRepos(server, generated, generated.small, home, key);
        if (await signetSshUp(server)) transports.push(signetSsh(server, account, "postgres"));
        transports.push(signetHttp(server, account, "postgres"));
        signetPg = server;
      });
    }

    await atRest;
    const client: ClientContext = {
      dir: `${work}/clients`,
      home,
      bigPushBytes: mode.bigPushBytes,
    };
    if (!values["skip-git"]) {
      await phase("git workloads", () =>
        runGitWorkloads(transports, client, {
          runs: mode.runs,
          warmup: mode.warmup,
          only: values.workloads?.split(","),
        }, git));
    }
    if (!values["skip-git"]) {
      await phase("helper floors", async () => {
        for (const t of transports) {
          const ms = await helperCpu(t, client, 11);
          if (ms !== null) helpers[t.id] = ms;
        }
      });
    }
    if (!values["skip-git"]) {
      await phase("breakdown", async () => {
        const ours = transports.filter((t) => t.id === "signet-ssh" || t.id === "signet-http");
        const logs = Object.fromEntries(ours.map((t) => [t.id, signet.logFile]));
        breakdown = await measureBreakdown(ours, logs, client, mode.breakdownRuns);
      });
    }
    // Before the parallel clones, whose load lingers: start-up times want a quiet machine.
    await phase("CLI start-up", async () => {
      progress("CLI start-up: signet credential get and whoami against an empty deno run");
      cli = await measureCliStartup(signet, mode.cliRounds);
    });
    if (!values["skip-parallel"]) {
      await phase("parallel clones", async () => {
        // The goals compare Signet with file:// alone. OpenSSH and nginx, context only and the
        // slowest (~35 s a round), run one round when asked (docs/decisions/performance-and-bench.md).
        const parallelTransports = transports.filter((t) =>
          PARALLEL_GOAL_TRANSPORTS.has(t.id) || (values["parallel-baselines"] && !t.fixedCostOnly)
        );
        const rounds = new Map<string, ParallelResult[]>(
          parallelTransports.map((t) => [t.id, []]),
        );
        for (let round = 0; round < mode.parallelRounds; round++) {
          const order = parallelTransports.map((_, i) =>
            parallelTransports[(i + round) % parallelTransports.length]
          );
          for (const t of order) {
            if (round > 0 && !PARALLEL_GOAL_TRANSPORTS.has(t.id)) continue;
            progress(`${mode.parallel} parallel clones over ${t.id} (round ${round + 1})`);
            const r = await parallelClones(t, client, mode.parallel);
            rounds.get(t.id)!.push(r);
            if (r.failures) progress(`  ${r.failures} failed: ${r.firstError}`);
          }
        }
        for (const t of parallelTransports) parallel.push(medianParallel(rounds.get(t.id)!));
      });
    }
    if (!values["skip-api"]) {
      await phase("API workloads", async () => {
        api = await runApiWorkloads(signet, {
          seconds: mode.apiSeconds,
          connections: mode.apiConnections,
          bots: mode.bots,
          workDir: work,
        });
      });
      if (api && await registryUp(signet.registryUrl)) {
        // The PostgreSQL twin's bots are seeded beside the SQLite server's: nothing is measured
        // until both seeds are over.
        let postgresSeed: Promise<number> | undefined;
        if (signetPg) {
          progress(`seeding ${mode.bots} bots on PostgreSQL, beside SQLite`);
          postgresSeed = seedBots(signetPg, postgresUrl, work, mode.bots);
          postgresSeed.catch(() => {}); // reported by the phase that awaits it
        }
        await phase("registry workloads", async () => {
          const r = await runRegistryWorkloads(signet, {
            seconds: mode.apiSeconds,
            connections: mode.apiConnections,
            bots: mode.bots,
            workDir: work,
            rounds: mode.rounds,
            mutations: mode.registryMutations,
            breakdownCreates: mode.breakdownCreates,
            seedingBeside: postgresSeed?.catch(() => {}),
          });
          api!.rows.push(...r.rows);
          api!.registry = r.registry;
        });
        if (signetPg) {
          const pg = signetPg;
          await phase("storage engines", async () => {
            engines = await runEngineRegistry({ sqlite: signet, postgres: pg }, postgresUrl, {
              ...registryLoads(mode, work),
              mutations: mode.mutations,
              seeding: postgresSeed,
            });
          });
        }
      } else notes.push("The registry is not available in this build: registry rows are missing.");
    }
    // The bench's Signet is left alone from here; the 25 s it rests overlap the cluster phase,
    // whose servers are others.
    rested = phase("memory after the loads", async () => {
      afterLoad = await measureAfterLoad(signet);
    });
    if (!values["skip-cluster"]) {
      // Last: its servers start after every other phase, on the same PostgreSQL cluster.
      await phase("cluster", async () => {
        cluster = await runClusterWorkloads(
          clusterOptions(mode, work, home, generated.small, key, postgres),
          client,
        );
      });
    }
    await rested;
  } finally {
    await atRest;
    await rested;
    for (const stop of stops.reverse()) {
      await stop().catch((e) => console.error(`stop failed: ${e}`));
    }
    if (!values.keep) await Deno.remove(work, { recursive: true }).catch(() => {});
    else progress(`kept ${work}`);
  }

  loads.push(`end ${await loadAverage()}`);
  const report: BenchReport = {
    started,
    finished: new Date(),
    quick: values.quick!,
    machine: {
      ...machine,
      "load average (1 min, the bench's own processes included) as each phase began, and the phase's time":
        loads.join(
          ", ",
        ),
    },
    settings: {
      "small repository": `${mode.sizes.files} files, ${mode.sizes.commits} commits`,
      "big repository": `one ${mode.sizes.blobBytes / MB} MB incompressible blob`,
      "big push": `${mode.bigPushBytes / MB} MB incompressible file in one commit`,
      "runs per workload and transport": `${mode.runs} timed after ${mode.warmup} warm-up, ` +
        "transports interleaved and rotated every run",
      "parallel clones":
        `${mode.parallel}, ${mode.parallelRounds} round(s), transport order rotated; OpenSSH and ` +
        `nginx: ${values["parallel-baselines"] ? "1 round" : "not run (--parallel-baselines)"}`,
      "API load": `${mode.apiSeconds} s per endpoint, ${mode.apiConnections} connections`,
      "registry bots": mode.bots.toLocaleString("en"),
      ...(postgresInfo ? { "PostgreSQL": postgresInfo } : {}),
      ...(cluster
        ? {
          cluster:
            `two instances behind nginx against one instance (bench/cluster_workloads.ts), ` +
            `${mode.clusterRounds} round(s) of GET bot per setup, ${mode.clusterCloneRounds} of ` +
            `${mode.parallel} parallel clones per setup and transport`,
        }
        : {}),
    },
    transports,
    commands: workloadCommands(),
    git,
    helpers,
    parallel,
    api,
    cli,
    engines,
    cluster,
    memory: { idle: idleMemory, afterLoad },
    breakdown,
    notes,
  };
  const goalsFile = new URL("./goals.json", import.meta.url).pathname;
  report.previousGoals = await readPreviousGoals(goalsFile);
  const out = values.out ??
    (values.quick ? null : new URL("./RESULTS.md", import.meta.url).pathname);
  if (out) {
    const old = await Deno.readTextFile(out).catch(() => "");
    const carried = CARRIED_SECTIONS.map((h) => sectionOf(old, h)).filter((x) => x !== null);
    await Deno.writeTextFile(out, [renderReport(report).trimEnd(), ...carried].join("\n\n"));
    // The project's formatter aligns Markdown tables; keep the committed file as `check` wants it.
    await cmd(Deno.execPath(), ["fmt", "--quiet", out]);
    progress(`wrote ${out}`);
  }
  const fullRun = !values.quick && !values.out && !values.workloads && !values["skip-git"] &&
    !values["skip-api"] && !values["skip-parallel"];
  if (fullRun) {
    const all = [...checkGoals(report), ...checkEngineGoals(report), ...checkClusterGoals(report)];
    await Deno.writeTextFile(goalsFile, JSON.stringify(goalRecord(report, all), null, 2) + "\n");
  }
  for (
    const g of [...checkGoals(report), ...checkEngineGoals(report), ...checkClusterGoals(report)]
  ) {
    console.log(`${g.ok === null ? "n/a " : g.ok ? "ok  " : "MISS"} ${g.goal}: ${g.measured}`);
  }
  const failures = parallel.reduce((n, p) => n + p.failures, 0) +
    (api?.rows.reduce((n, r) => n + r.errors, 0) ?? 0) + clusterFailures(cluster);
  if (failures || errors.length) {
    console.error(`${failures} operations failed${errors.length ? `; ${errors.join("; ")}` : ""}`);
    return 1;
  }
  return 0;
}

Deno.exit(await main());
