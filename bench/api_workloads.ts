/** API workloads: login rate, and the registry against a bare Deno.serve endpoint. */
import { cmd, freePort, median, progress, quantile, waitForPort } from "./util.ts";
import type { SignetServer } from "./signet.ts";
import { wrk } from "./load/wrk.ts";
import { runAdminLists } from "./admin_lists.ts";

/** One row of the API table. Latencies in milliseconds. */
export interface ApiRow {
  name: string;
  rps: number;
  /**
   * The load sent every one of its pre-signed bodies before its time was up, so `rps` (wrk's
   * requests over the whole duration) is a lower bound of what the server could do.
   */
  ranOut?: boolean;
  p50: number;
  p99: number;
  errors: number;
  note?: string;
}

/** Registry measurements, with their references from the same run. */
export interface RegistryResults {
  bots: number;
  bare: ApiRow;
  getBot: ApiRow;
  /** The search load's median round (see searchP99Rounds). */
  search: ApiRow;
  /** Each round's p99 (ms), in run order; absent in results written before rounds were run. */
  searchP99Rounds?: number[];
  mutations: ApiRow;
  rawVerifyPerSec: number;
  /** The same with 16 verifications in flight (information; the goal uses one at a time). */
  rawVerifyConcurrentPerSec: number;
  /** The server's main thread during the mutation load: share of the time busy, CPU per create. */
  mutationMainThread: { busyShare: number; usPerCreate: number } | null;
  /** Where one verified create's CPU goes (bench/load/create_breakdown.ts), µs per create. */
  createBreakdown: CreateBreakdown | null;
  /**
   * The same create load against the store-mode ceiling (bench/load/create_ceiling.ts store: body
   * parse, one Ed25519 verify, Signet's own stored writes, nothing else), run right after.
   */
  storeCeiling?: ApiRow | null;
  /**
   * The same load against Signet's own create alone (bench/load/create_ceiling.ts domain: strict
   * JSON, schema and `mutateBot` behind a bare Deno.serve), run right after: the limit for a create
   * that makes every check the spec requires, on this stack.
   */
  domainCeiling?: ApiRow | null;
  /** Each round of bare endpoint then GET bot, run back to back. */
  getRounds: GetRound[];
}

/**
 * One round of the bare endpoint's load followed at once by GET bot's and the thinnest reader's
 * (which of the two first alternating), and the CPU they used.
 */
export interface GetRound {
  bareRps: number;
  getRps: number;
  /** The thinnest stored-bot reader on the same file (the stack's limit), and its CPU per request. */
  thinRps: number;
  thinUsPerRequest: number;
  /** CPU per request (µs): the bare server's process; Signet's busiest thread (the guard). */
  bareUsPerRequest: number;
  guardUsPerRequest: number;
  /** Share of the wall time Signet's main thread was busy during the GET load. */
  signetMainShare: number;
  /** Share of the machine's CPU (all cores) busy during each load, wrk included. */
  machineBusyBare: number;
  machineBusyGet: number;
}

/** Microseconds per create of each part of the registry's create path, in one process. */
export interface CreateBreakdown {
  handlerUs: number;
  frontUs: number;
  mutationUs: number;
  verifyUs: number;
  storeUs: number;
  creates: number;
}

/** Everything the API part measured. */
export interface ApiResults {
  generator: string;
  durationS: number;
  connections: number;
  rows: ApiRow[];
  registry: RegistryResults | null;
}

/** Settings of the API part. */
export interface ApiOptions {
  seconds: number;
  connections: number;
  bots: number;
  workDir: string;
}

const LOAD = new URL("./load/", import.meta.url).pathname;

async function deno(script: string, args: string[]): Promise<string> {
  const r = await cmd(Deno.execPath(), ["run", "-A", `${LOAD}${script}`, ...args]);
  if (r.code !== 0) throw new Error(`${script} failed (${r.code}):\n${r.stderr.slice(-2000)}`);
  return r.stdout.trim().split("\n").pop()!;
}

/** Login (challenge + SSHSIG sign + verify) per second, from a separate client process. */
export async function measureLogin(server: SignetServer, opts: ApiOptions): Promise<ApiRow> {
  const out = JSON.parse(
    await deno("login_client.ts", [
      server.httpUrl,
      server.adminKey,
      String(opts.seconds),
      String(opts.connections),
    ]),
  ) as { logins: number; errors: number; elapsed: number; latenciesMs: number[] };
  return {
    name: "login (POST challenge + sign + POST verify)",
    rps: out.logins / out.elapsed,
    p50: median(out.latenciesMs),
    p99: quantile(out.latenciesMs, 0.99),
    errors: out.errors,
    note:
      `bench/load/login_client.ts, ${opts.connections} concurrent loops; signing is client-side`,
  };
}

/** A running bare Deno.serve JSON endpoint. */
export type BareServer = LoadServer & { url: string };

/** A bench/load/ script serving on a port of its own. */
export interface LoadServer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts bench/load/`script` with a free port as its first argument, then `args`; resolves once it
 * listens (within `timeoutMs`).
 */
export async function startLoadServer(
  script: string,
  args: string[],
  timeoutMs?: number,
): Promise<LoadServer> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${LOAD}${script}`, String(port), ...args],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
  };
  await waitForPort(port, timeoutMs).catch(async (err) => {
    await stop();
    throw err;
  });
  return { port, pid: child.pid, stop };
}

/** Starts the reference endpoint serving `json` (use a real bot record's bytes). */
export async function startBareServer(json: string, workDir: string): Promise<BareServer> {
  const file = `${workDir}/bare.json`;
  await Deno.writeTextFile(file, json);
  const server = await startLoadServer("bare_server.ts", [file]);
  return { ...server, url: `http://127.0.0.1:${server.port}/` };
}

/** A running thinnest stored-bot reader (bench/load/thin_bot_reader.ts). */
export type ThinReader = LoadServer & { registryUrl: string };

/**
 * Starts bench/load/thin_bot_reader.ts answering GET bot from `database` (`engine`: `sqlite` for
 * the file's path, `postgres` for a URL) through the connection guard's own row source; resolves
 * once it listens.
 */
export async function startThinReader(engine: string, database: string): Promise<ThinReader> {
  const server = await startLoadServer("thin_bot_reader.ts", [engine, database]);
  return { ...server, registryUrl: `http://127.0.0.1:${server.port}` };
}

/**
 * Runs wrk against `url` and shapes the result as a table row; with `warmUp`, after an untimed run
 * of the same load lasting that many seconds.
 */
export async function wrkRow(
  name: string,
  url: string,
  opts: ApiOptions,
  extra: {
    script?: string;
    scriptArgs?: string[];
    note?: string;
    warmUp?: number;
    /** Measured seconds, instead of `opts.seconds`. */
    seconds?: number;
  } = {},
): Promise<ApiRow> {
  progress(`wrk ${name}`);
  const load = {
    url,
    connections: opts.connections,
    script: extra.script,
    scriptArgs: extra.scriptArgs,
  };
  // The untimed run first: the endpoint's code compiled, its database pages mapped.
  if (extra.warmUp) await wrk({ ...load, seconds: extra.warmUp });
  const r = await wrk({ ...load, seconds: extra.seconds ?? opts.seconds });
  return { name, rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, note: extra.note };
}

/** WebCrypto Ed25519 importKey + verify per second in one Deno process, `inFlight` at once. */
export async function measureRawVerify(seconds: number, inFlight = 1): Promise<number> {
  const out = await deno("raw_verify.ts", [String(seconds), String(inFlight)]);
  return (JSON.parse(out) as { perSec: number }).perSec;
}

/** Runs the API workloads that exist on this server. */
export async function runApiWorkloads(
  server: SignetServer,
  opts: ApiOptions,
): Promise<ApiResults> {
  const rows: ApiRow[] = [];
  progress("login rate");
  rows.push(await measureLogin(server, opts));
  rows.push(await wrkRow("hosting GET /api/health", `${server.httpUrl}/api/health`, opts));
  // Lists at scale, on a Signet of their own (seeded with 10,000 repositories and 1,000 users).
  rows.push(...await runAdminLists(opts.workDir, opts.seconds));
  return {
    generator: "wrk 4.1 (Debian), 1 thread; login: a separate Deno client process",
    durationS: opts.seconds,
    connections: opts.connections,
    rows,
    registry: null,
  };
}

/** True when the registry answers on its address. */
export async function registryUp(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`);
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
