/** Registry workloads: GET bot and search at scale against a bare Deno.serve, verified mutations. */
import { DatabaseSync } from "node:sqlite";
import { cmd, machineCpuMs, median, progress, threadCpuMs, threadsCpuMs } from "./util.ts";
import { type SignetServer, startSignet } from "./signet.ts";
import {
  type ApiOptions,
  type ApiRow,
  type CreateBreakdown,
  type GetRound,
  measureRawVerify,
  type RegistryResults,
  startBareServer,
  startLoadServer,
  startThinReader,
  wrkRow,
} from "./api_workloads.ts";
import { SEED_WORDS, seedBotId } from "./load/seed_names.ts";

const LOAD = new URL("./load/", import.meta.url).pathname;

async function denoScript(script: string, args: string[]): Promise<string> {
  const r = await cmd(Deno.execPath(), ["run", "-A", `${LOAD}${script}`, ...args]);
  if (r.code !== 0) throw new Error(`${script} failed (${r.code}):\n${r.stderr.slice(-2000)}`);
  return r.stdout.trim();
}

/** Writes a consistent copy of the (live, WAL-mode) database at `from` to `to`. */
function snapshotDatabase(from: string, to: string): void {
  const db = new DatabaseSync(from, { readOnly: true });
  try {
    db.prepare("VACUUM INTO ?").run(to);
  } finally {
    db.close();
  }
}

/** Median of the rows' numbers, as one row (for rounds run back to back). */
function medianRow(name: string, rows: ApiRow[], note: string): ApiRow {
  const mid = (f: (r: ApiRow) => number) => median(rows.map(f));
  return {
    name,
    rps: mid((r) => r.rps),
    p50: mid((r) => r.p50),
    p99: mid((r) => r.p99),
    errors: rows.reduce((n, r) => n + r.errors, 0),
    note: `${note}${
      rows.length > 1
        ? `; median of ${rows.length} rounds: ${
          rows.map((r) => Math.round(r.rps)).join(", ")
        } req/s`
        : ""
    }`,
  };
}

/**
 * Measured seconds of each bare and GET round. The two loads of a round run back to back and the
 * goal takes the median of the rounds' ratios: this machine's speed drifts by a quarter within a
 * minute, so rounds measured moments apart compare like with like.
 */
const GET_ROUND_SECONDS = 2;

/** Measured seconds of one bare or GET round when the API phase measures `apiSeconds` per row. */
export function getRoundSeconds(apiSeconds: number): number {
  return Math.min(apiSeconds, GET_ROUND_SECONDS);
}

/** CPU used while `load` ran: process `pid`'s threads, and the machine's (all cores). */
async function measuredLoad(pid: number, load: () => Promise<ApiRow>): Promise<{
  row: ApiRow;
  cpu: { processMs: number; mainMs: number; busiestOtherMs: number; machineBusy: number };
}> {
  const before = threadsCpuMs(pid);
  const machineBefore = machineCpuMs();
  const row = await load();
  const after = threadsCpuMs(pid);
  const machineAfter = machineCpuMs();
  const used = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
  const others = used.filter((t) => t.tid !== pid).map((t) => t.ms);
  const machineTotal = machineAfter.total - machineBefore.total;
  return {
    row,
    cpu: {
      processMs: used.reduce((n, t) => n + t.ms, 0),
      mainMs: used.find((t) => t.tid === pid)?.ms ?? 0,
      busiestOtherMs: Math.max(0, ...others),
      machineBusy: machineTotal > 0 ? (machineAfter.busy - machineBefore.busy) / machineTotal : 0,
    },
  };
}

/** Untimed load before the first measured GET of a server (bare reference included). */
export const GET_WARM_UP_SECONDS = 1;
/**
 * Untimed search load before the measured one: a fresh server maps the pages of the 100,000-bot
 * search index as searches first touch them (~30,000 page faults) and compiles the search path;
 * measured on this machine, a server's first seconds of search load ran at ~60% of its later rate.
 */
export const SEARCH_WARM_UP_SECONDS = 5;

/**
 * Measured rounds of the search load, back to back (of getRoundSeconds each): its p99 goal takes
 * the median round's. One 3 s run's p99 is a few dozen requests, and one stall of the machine
 * moved it from 5–8 ms to 14.8 in a run whose median and throughput were unchanged.
 */
export const SEARCH_ROUNDS = 3;

/**
 * Seeds `opts.bots` bots, then measures the registry against its references; with
 * `seedingBeside` (another server's seed, run at the same time), waits for that too before the
 * first load.
 */
export async function runRegistryWorkloads(
  server: SignetServer,
  opts: ApiOptions & {
    rounds: number;
    mutations: number;
    breakdownCreates: number;
    seedingBeside?: Promise<unknown>;
  },
): Promise<{ rows: ApiRow[]; registry: RegistryResults }> {
  progress(`seeding ${opts.bots} bots`);
  const templateFile = `${opts.workDir}/template.json`;
  await Deno.writeTextFile(
    templateFile,
    await denoScript("registry_template.ts", [server.registryUrl]),
  );
  const seeded = performance.now();
  await denoScript("seed_registry.ts", [
    `${server.dataDir}/signet.db`,
    String(opts.bots),
    templateFile,
  ]);
  progress(`  seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  await opts.seedingBeside;
  // A copy of the freshly seeded database for the in-process create breakdown (later), taken now:
  // cheaper than seeding another, and free of the bots the mutation load will add.
  const breakdownDb = `${opts.workDir}/breakdown.db`;
  snapshotDatabase(`${server.dataDir}/signet.db`, breakdownDb);

  const sample = await fetch(`${server.registryUrl}/v1/bots/${seedBotId(1)}`);
  if (sample.status !== 200) throw new Error(`seeded bot not readable: ${sample.status}`);
  const bare = await startBareServer(await sample.text(), opts.workDir);
  // The stack's limit for a stored read: the thinnest reader of the same file (no routing, guard,
  // limits, logs or metrics), measured in the same rounds.
  const thin = await startThinReader("sqlite", `${server.dataDir}/signet.db`).catch(
    async (err) => {
      await bare.stop();
      throw err;
    },
  );
  // The same data served without the HTTP connection guard, to show what the guard costs: a copy
  // of the database in a data dir of its own (the embedded file is one server's).
  const unguardedDir = `${opts.workDir}/unguarded-data`;
  await Deno.mkdir(unguardedDir, { recursive: true });
  snapshotDatabase(`${server.dataDir}/signet.db`, `${unguardedDir}/signet.db`);
  // The bare server stops even when this one cannot start.
  const unguarded = await startSignet(unguardedDir, {
    SERVICE_SSH_BIND: "off",
    SERVICE_HTTP_HEADER_TIMEOUT: "0",
    SERVICE_HTTP_IDLE_TIMEOUT: "0",
  }).catch(async (err) => {
    await bare.stop();
    await thin.stop();
    throw err;
  });
  const bareRows: ApiRow[] = [];
  const getRows: ApiRow[] = [];
  const unguardedRows: ApiRow[] = [];
  const thinRows: ApiRow[] = [];
  const getRounds: GetRound[] = [];
  const seconds = getRoundSeconds(opts.seconds);
  const getBot = (name: string, url: string, extra: { seconds?: number; warmUp?: number } = {}) =>
    wrkRow(name, `${url}/`, opts, {
      script: `${LOAD}get_bot.lua`,
      scriptArgs: [String(opts.bots)],
      seconds: extra.seconds ?? seconds,
      warmUp: extra.warmUp,
    });
  try {
    // The untimed loads first, so the CPU of each round covers its measured load alone.
    await wrkRow("bare Deno.serve JSON (warm-up)", bare.url, opts, {
      seconds: GET_WARM_UP_SECONDS,
    });
    await getBot("GET /v1/bots/{id} (warm-up)", server.registryUrl, {
      seconds: GET_WARM_UP_SECONDS,
    });
    await getBot("thinnest reader (warm-up)", thin.registryUrl, {
      seconds: GET_WARM_UP_SECONDS,
    });
    for (let round = 0; round < opts.rounds; round++) {
      const bareLoad = await measuredLoad(
        bare.pid,
        () => wrkRow("bare Deno.serve JSON", bare.url, opts, { seconds }),
      );
      // Signet and the thin reader take turns coming right after the bare endpoint.
      const signetLoad = () =>
        measuredLoad(server.pid, () => getBot("GET /v1/bots/{id}", server.registryUrl));
      const thinLoad = () =>
        measuredLoad(
          thin.pid,
          () => getBot("GET /v1/bots/{id}, thinnest reader", thin.registryUrl),
        );
      let getLoad, thinnest;
      if (round % 2 === 0) {
        getLoad = await signetLoad();
        thinnest = await thinLoad();
      } else {
        thinnest = await thinLoad();
        getLoad = await signetLoad();
      }
      bareRows.push(bareLoad.row);
      getRows.push(getLoad.row);
      thinRows.push(thinnest.row);
      getRounds.push({
        bareRps: bareLoad.row.rps,
        getRps: getLoad.row.rps,
        thinRps: thinnest.row.rps,
        thinUsPerRequest: thinnest.cpu.processMs * 1000 / (thinnest.row.rps * seconds),
        bareUsPerRequest: bareLoad.cpu.processMs * 1000 / (bareLoad.row.rps * seconds),
        guardUsPerRequest: getLoad.cpu.busiestOtherMs * 1000 / (getLoad.row.rps * seconds),
        signetMainShare: getLoad.cpu.mainMs / (seconds * 1000),
        machineBusyBare: bareLoad.cpu.machineBusy,
        machineBusyGet: getLoad.cpu.machineBusy,
      });
    }
    // Context, not a goal: one run is enough.
    unguardedRows.push(
      await getBot("GET /v1/bots/{id}, guard off", unguarded.registryUrl, {
        seconds: opts.seconds,
        warmUp: GET_WARM_UP_SECONDS,
      }),
    );
  } finally {
    await bare.stop();
    await thin.stop();
    await unguarded.stop();
  }
  const searchNote = "mix: common word, rare id fragment, capability, word+capability+status";
  // The search mix (wrk's script and its words), for the rounds and the one-connection row.
  const searchMix = { script: `${LOAD}search.lua`, scriptArgs: [SEED_WORDS.join(",")] };
  const searchRounds: ApiRow[] = [];
  for (let round = 0; round < SEARCH_ROUNDS; round++) {
    searchRounds.push(
      await wrkRow("GET /v1/search", `${server.registryUrl}/`, opts, {
        ...searchMix,
        note: searchNote,
        warmUp: round === 0 ? SEARCH_WARM_UP_SECONDS : 0,
        seconds: getRoundSeconds(opts.seconds),
      }),
    );
  }
  const searchRow = medianRow("GET /v1/search", searchRounds, searchNote);

  // The same mix with one connection: service time without queueing behind other requests.
  const searchAlone = await wrkRow("GET /v1/search, 1 connection", `${server.registryUrl}/`, {
    ...opts,
    connections: 1,
  }, {
    ...searchMix,
    note: "same mix, one request at a time (service time)",
  });

  progress("raw Ed25519 import+verify rate");
  const rawVerifyPerSec = await measureRawVerify(Math.max(1, opts.seconds / 2));
  const rawVerifyConcurrentPerSec = await measureRawVerify(Math.max(1, opts.seconds / 2), 16);
  progress(`pre-signing ${opts.mutations} mutations`);
  const bodies = `${opts.workDir}/mutations.txt`;
  await denoScript("make_mutations.ts", [
    server.registryUrl,
    String(opts.mutations),
    bodies,
    "load",
  ]);
  // A load of the pre-signed bodies, each sent once: one that used them all before its end
  // measured fewer requests than the server could answer (wrk divides by the whole duration).
  const bodiesLoad = async (name: string, url: string, extra: Parameters<typeof wrkRow>[3]) => {
    const row = await wrkRow(name, url, opts, extra);
    return row.rps * opts.seconds >= opts.mutations * 0.99 ? { ...row, ranOut: true } : row;
  };
  const mainBefore = threadCpuMs(server.pid);
  const mutStarted = performance.now();
  const mutRow = await bodiesLoad("POST /v1/bots (verified create)", `${server.registryUrl}/`, {
    script: `${LOAD}mutations.lua`,
    scriptArgs: [bodies],
    note: `${opts.mutations} distinct pre-signed bodies, each with its own key and nonce`,
  });
  const mainMs = threadCpuMs(server.pid) - mainBefore;
  const busyShare = mainMs / (performance.now() - mutStarted);
  const mutationMainThread = mainMs === 0 || mutRow.rps === 0
    ? null
    : { busyShare, usPerCreate: busyShare * 1e6 / mutRow.rps };

  // The ceilings write into their own copies of the freshly seeded database (taken before the
  // breakdown below writes into that one), under the same load with the same bodies.
  const ceiling = (mode: "store" | "domain", name: string, note: string) => {
    progress(`verified creates: ${name} (bench/load/create_ceiling.ts ${mode})`);
    return withCeilingServer(
      mode,
      breakdownDb,
      `${opts.workDir}/${mode}.db`,
      (url) =>
        bodiesLoad(name, url, {
          script: `${LOAD}mutations.lua`,
          scriptArgs: [bodies],
          note: `bench/load/create_ceiling.ts ${mode}: ${note}`,
        }),
    );
  };
  const storeCeiling = await ceiling(
    "store",
    "create ceiling: bare Deno.serve, verify + Signet's stored writes",
    "body parse, one Ed25519 verify, storeBot",
  );
  const domainCeiling = await ceiling(
    "domain",
    "create limit: bare Deno.serve, Signet's whole create",
    "strict JSON, schema, mutateBot (every check the spec requires); no router, middleware, logs or guard",
  );

  progress(`create breakdown (${opts.breakdownCreates} creates per step, in one process)`);
  const createBreakdown: CreateBreakdown = {
    ...JSON.parse(
      await denoScript("create_breakdown.ts", [breakdownDb, String(opts.breakdownCreates)]),
    ),
    creates: opts.breakdownCreates,
  };

  const bareRow = medianRow(
    "bare Deno.serve JSON (same bytes as a bot record)",
    bareRows,
    "reference",
  );
  const getRow = medianRow("GET /v1/bots/{id}", getRows, `random ids of ${opts.bots} bots`);
  const thinRow = medianRow(
    "GET /v1/bots/{id}, the thinnest reader",
    thinRows,
    "bench/load/thin_bot_reader.ts on the same file: the guard's SQLite reads behind a raw HTTP/1.1 listener, nothing else",
  );
  const unguardedRow = medianRow(
    "GET /v1/bots/{id}, connection guard off",
    unguardedRows,
    "a second Signet on the same data, SERVICE_HTTP_HEADER_TIMEOUT=0 SERVICE_HTTP_IDLE_TIMEOUT=0",
  );
  const rows = [
    bareRow,
    getRow,
    thinRow,
    unguardedRow,
    searchRow,
    searchAlone,
    mutRow,
    storeCeiling,
    domainCeiling,
  ];
  return {
    rows,
    registry: {
      bots: opts.bots,
      bare: bareRow,
      getBot: getRow,
      search: searchRow,
      searchP99Rounds: searchRounds.map((r) => r.p99),
      mutations: mutRow,
      rawVerifyPerSec,
      rawVerifyConcurrentPerSec,
      mutationMainThread,
      createBreakdown,
      storeCeiling,
      domainCeiling,
      getRounds,
    },
  };
}

/**
 * Runs `load` against create_ceiling.ts in `mode` on `copy`, a fresh copy of `database`, stopped
 * afterwards.
 */
async function withCeilingServer<T>(
  mode: "store" | "domain",
  database: string,
  copy: string,
  load: (url: string) => Promise<T>,
): Promise<T> {
  snapshotDatabase(database, copy);
  const server = await startLoadServer("create_ceiling.ts", [mode, copy], 60_000);
  try {
    return await load(`http://127.0.0.1:${server.port}/`);
  } finally {
    await server.stop();
  }
}
