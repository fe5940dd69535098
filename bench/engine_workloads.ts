/**
 * The storage engines side by side: the registry's GET bot, search and verified creates on a
 * Signet over the embedded SQLite file and on one over PostgreSQL, in alternating rounds (order
 * flipped every round) so the machine's drift hits both alike. The git workloads of the engine
 * comparison run with the other transports (bench/git_workloads.ts, `-pg` transports); this file
 * reads them back out of the report.
 */
import { cmd, median, procStatus, progress } from "./util.ts";
import type { SignetServer } from "./signet.ts";
import { type ApiOptions, type ApiRow, wrkRow } from "./api_workloads.ts";
import { SEED_WORDS } from "./load/seed_names.ts";

const LOAD = new URL("./load/", import.meta.url).pathname;

/**
 * The bench's PostgreSQL settings beyond testing/postgres.ts's: shared buffers that hold the
 * 100,000-bot registry (PostgreSQL's default of 128 MB does not; SQLite's reads come from the page
 * cache either way), as a production server would be configured.
 */
export const BENCH_POSTGRES_SETTINGS = { shared_buffers: "512MB" };

/** The two engines, in the order the tables show them. */
export const ENGINES = ["sqlite", "postgres"] as const;
export type EngineName = typeof ENGINES[number];

/** One figure per round and engine. */
export type PerEngine<T> = Record<EngineName, T[]>;

/** The registry measured on both engines. */
export interface EngineRegistry {
  bots: Record<EngineName, number>;
  /** Measured seconds of each GET round, and of each search and create round. */
  getSeconds: number;
  seconds: number;
  get: PerEngine<ApiRow>;
  search: PerEngine<ApiRow>;
  creates: PerEngine<ApiRow>;
  /** Seconds to seed the PostgreSQL server's bots (bench/load/seed_registry.ts, bulk path). */
  seedSeconds: number;
  /** RSS (KiB) of each Signet server process after the comparison. */
  rssKb: Record<EngineName, number>;
}

/** Runs a Deno script from bench/load/ and returns its stdout. */
export async function loadScript(script: string, args: string[]): Promise<string> {
  const r = await cmd(Deno.execPath(), ["run", "-A", `${LOAD}${script}`, ...args]);
  if (r.code !== 0) throw new Error(`${script} failed (${r.code}):\n${r.stderr.slice(-2000)}`);
  return r.stdout.trim();
}

/** Resident set (KiB) of process `pid`, 0 when it is gone. */
export function rssKb(pid: number): number {
  return procStatus(pid, "VmRSS");
}

/**
 * Seeds `count` bots from number `start` into `server`'s database (`database`: its SQLite file or
 * PostgreSQL URL), cloned from a template the server creates the first time; returns the seconds.
 */
export async function seedBots(
  server: Pick<SignetServer, "registryUrl">,
  database: string,
  workDir: string,
  count: number,
  start = 0,
): Promise<number> {
  const templateFile = `${workDir}/template-${server.registryUrl.replace(/\D/g, "")}.json`;
  try {
    await Deno.stat(templateFile);
  } catch {
    await Deno.writeTextFile(
      templateFile,
      await loadScript("registry_template.ts", [server.registryUrl]),
    );
  }
  const t0 = performance.now();
  // A large seed on PostgreSQL builds its search index once, after the rows.
  const flags = count >= 200_000 ? ["--rebuild-index"] : [];
  await loadScript("seed_registry.ts", [
    database,
    String(count),
    templateFile,
    String(start),
    ...flags,
  ]);
  return (performance.now() - t0) / 1000;
}

/** The registry loads the engine comparisons run: wrk's row name, script and its arguments. */
const REGISTRY_LOADS = {
  get: (bots: number) => ["GET /v1/bots/{id}", "get_bot.lua", [String(bots)]] as const,
  search: () => ["GET /v1/search", "search.lua", [SEED_WORDS.join(",")]] as const,
};

// One measured registry load of `seconds` against `server`.
function registryLoad(
  [name, script, scriptArgs]: readonly [string, string, readonly string[]],
  server: Pick<SignetServer, "registryUrl">,
  opts: ApiOptions,
  seconds: number,
  warmUp?: number,
): Promise<ApiRow> {
  return wrkRow(name, `${server.registryUrl}/`, opts, {
    script: `${LOAD}${script}`,
    scriptArgs: [...scriptArgs],
    seconds,
    warmUp,
  });
}

/** One measured GET bot load of `seconds` over random ids of `bots` seeded bots. */
export function getBotLoad(
  server: Pick<SignetServer, "registryUrl">,
  opts: ApiOptions,
  bots: number,
  seconds: number,
  warmUp?: number,
): Promise<ApiRow> {
  return registryLoad(REGISTRY_LOADS.get(bots), server, opts, seconds, warmUp);
}

/** One measured search load (the bench's mix) of `seconds`. */
export function searchLoad(
  server: SignetServer,
  opts: ApiOptions,
  seconds: number,
  warmUp?: number,
): Promise<ApiRow> {
  return registryLoad(REGISTRY_LOADS.search(), server, opts, seconds, warmUp);
}

/** Runs `load` on each engine once per round, the order flipped every round. */
export async function alternate<T>(
  rounds: number,
  load: (engine: EngineName, round: number) => Promise<T>,
): Promise<PerEngine<T>> {
  const out: PerEngine<T> = { sqlite: [], postgres: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...ENGINES].reverse() : [...ENGINES];
    for (const engine of order) out[engine].push(await load(engine, round));
  }
  return out;
}

/**
 * The registry on both engines. `servers.sqlite` has been seeded and measured already (the
 * registry workloads); `servers.postgres` is seeded here with as many bots, unless `seeding` (the
 * seconds of a seed begun earlier, `seedBots`) is given.
 */
export async function runEngineRegistry(
  servers: Record<EngineName, SignetServer>,
  postgresUrl: string,
  opts: ApiOptions & {
    rounds: number;
    mutations: number;
    getSeconds: number;
    seeding?: Promise<number>;
  },
): Promise<EngineRegistry> {
  if (!opts.seeding) progress(`seeding ${opts.bots} bots on PostgreSQL`);
  const seedSeconds = await (opts.seeding ??
    seedBots(servers.postgres, postgresUrl, opts.workDir, opts.bots));
  progress(`  PostgreSQL seeded in ${seedSeconds.toFixed(1)} s`);
  // Untimed loads first: the PostgreSQL server is fresh (SQLite's was warmed by the earlier phase).
  for (const engine of ENGINES) {
    await getBotLoad(servers[engine], opts, opts.bots, 1);
    await searchLoad(servers[engine], opts, engine === "postgres" ? 5 : 1);
  }
  const get = await alternate(
    opts.rounds,
    (engine) => getBotLoad(servers[engine], opts, opts.bots, opts.getSeconds),
  );
  const search = await alternate(
    opts.rounds,
    (engine) => searchLoad(servers[engine], opts, opts.seconds),
  );
  // Bodies signed for each server just before its round (nonces are the server's own).
  const createRounds = Math.max(1, Math.min(2, opts.rounds));
  const perRound = Math.max(500, Math.round(opts.mutations / createRounds));
  const creates = await alternate(createRounds, async (engine, round) => {
    const bodies = `${opts.workDir}/engine-mutations-${engine}-${round}.txt`;
    await loadScript("make_mutations.ts", [
      servers[engine].registryUrl,
      String(perRound),
      bodies,
      `engine-${engine}-${round}`,
    ]);
    return await wrkRow(
      "POST /v1/bots (verified create)",
      `${servers[engine].registryUrl}/`,
      opts,
      {
        script: `${LOAD}mutations.lua`,
        scriptArgs: [bodies],
      },
    );
  });
  return {
    bots: { sqlite: opts.bots, postgres: opts.bots },
    getSeconds: opts.getSeconds,
    seconds: opts.seconds,
    get,
    search,
    creates,
    seedSeconds,
    rssKb: { sqlite: rssKb(servers.sqlite.pid), postgres: rssKb(servers.postgres.pid) },
  };
}

/** The one value `query` selects (as text) from the PostgreSQL database at `url`. */
export async function postgresValue(url: string, query: string): Promise<string> {
  const { default: postgres } = await import("postgres");
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [r] = await sql.unsafe(query);
    return String(Object.values(r)[0]);
  } finally {
    await sql.end();
  }
}

/** The version of the PostgreSQL server at `url`. */
export function serverVersion(url: string): Promise<string> {
  return postgresValue(url, "SELECT current_setting('server_version')");
}

/** Median and range of `xs`. */
export function spread(xs: number[]): { median: number; min: number; max: number } {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}
