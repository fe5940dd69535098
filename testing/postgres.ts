/**
 * A throwaway PostgreSQL cluster for the tests and the bench: `initdb` into a temporary directory
 * (as the unprivileged user `pgtest` when running as root, which PostgreSQL requires), started on
 * a free loopback port with trust authentication for the role `signet`. With
 * SERVICE_TEST_POSTGRES_URL set (a base URL such as `postgres://signet@127.0.0.1:5432/postgres`)
 * an already-running cluster is used instead, and only fresh databases are made in it.
 */
import postgres from "postgres";
import { freePort } from "./ports.ts";

/** A cluster to make databases in. */
export interface TestPostgres {
  /** The URL of database `db` (default `postgres`). */
  url(db?: string): string;
  /** Creates a fresh, empty database with a unique name; returns its URL. */
  createDatabase(): Promise<string>;
  /** Whether `stop` and `start` work (false for a shared cluster from the environment). */
  readonly restartable: boolean;
  /** Stops the cluster (fast shutdown: open connections are cut). */
  stop(): Promise<void>;
  /** Starts it again, on the same port, after `stop`. */
  start(): Promise<void>;
  /** Freezes every process of the cluster (SIGSTOP): a server that accepts nothing and answers nothing. */
  freeze(): Promise<void>;
  /** Lets a frozen cluster run again (SIGCONT). */
  thaw(): Promise<void>;
  /** Stops the cluster and deletes its directory (a no-op for a shared cluster). */
  destroy(): Promise<void>;
  /**
   * `url` (a database of this cluster) over the cluster's Unix-domain socket, the libpq way
   * (`?host=/dir`, which Signet's store reads); `url` itself for a shared cluster.
   */
  overSocket(url: string): string;
}

const USER = "pgtest";
/** A role the local cluster authenticates by password (create it with a password to use it). */
export const PASSWORD_ROLE = "signet_pw";
let counter = 0;

/**
 * Starts a cluster (or attaches to SERVICE_TEST_POSTGRES_URL's; `own` always starts one, for tests
 * that stop or freeze it).
 */
export async function startPostgres(
  opts: { own?: boolean; settings?: Record<string, string> } = {},
): Promise<TestPostgres> {
  const shared = Deno.env.get("SERVICE_TEST_POSTGRES_URL");
  if (shared && !opts.own) return attach(shared);
  const bin = await findBin();
  const owner = Deno.uid() === 0 ? await ensureUser() : undefined;
  const root = await Deno.makeTempDir({ prefix: "signet-pg-" });
  const dir = `${root}/data`;
  if (owner) await Deno.chown(root, owner.uid, owner.gid);
  const port = freePort();
  const base = `postgres://signet@127.0.0.1:${port}`;
  const pgStart = () =>
    run(`${bin}/pg_ctl`, [
      "-D",
      dir,
      "-l",
      `${root}/log`,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200${
        Object.entries(opts.settings ?? {}).map(([k, v]) => ` -c ${k}=${v}`).join("")
      }`,
      "-w",
      "-t",
      "60",
      "start",
    ], owner);
  const pgStop = () => run(`${bin}/pg_ctl`, ["-D", dir, "-m", "fast", "-w", "stop"], owner);
  // A start that fails (or is interrupted: Ctrl-C reaches initdb and pg_ctl, but not the server
  // pg_ctl started in a session of its own) leaves no server and no directory behind.
  try {
    await run(`${bin}/initdb`, [
      "-D",
      dir,
      "-A",
      "trust",
      "-U",
      "signet",
      "--encoding=UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ], owner);
    // One role must give a password (trust for everyone else), to test that failure's message.
    const hba = `${dir}/pg_hba.conf`;
    await Deno.writeTextFile(
      hba,
      `host all ${PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\n${await Deno.readTextFile(hba)}`,
    );
    await pgStart();
  } catch (err) {
    await pgStop().catch(() => {});
    await Deno.remove(root, { recursive: true }).catch(() => {});
    throw err;
  }
  let running = true;
  return {
    url: (db = "postgres") => `${base}/${db}`,
    createDatabase: () => createDatabase(`${base}/postgres`, base),
    restartable: true,
    async stop() {
      await pgStop();
      running = false;
    },
    async start() {
      await pgStart();
      running = true;
    },
    freeze: () => signalAll(dir, "SIGSTOP"),
    thaw: () => signalAll(dir, "SIGCONT"),
    overSocket: (url) => `${url}${url.includes("?") ? "&" : "?"}host=${encodeURIComponent(dir)}`,
    async destroy() {
      await signalAll(dir, "SIGCONT").catch(() => {});
      if (running) await pgStop().catch(() => {});
      running = false;
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

function attach(sharedUrl: string): TestPostgres {
  const u = new URL(sharedUrl);
  const at = (db: string) => {
    const v = new URL(u);
    v.pathname = `/${db}`;
    return v.toString();
  };
  const unsupported = () => {
    return Promise.reject(new Error("a shared SERVICE_TEST_POSTGRES_URL cluster is not restarted"));
  };
  return {
    url: (db = "postgres") => at(db),
    createDatabase: () => createDatabase(sharedUrl, at("").replace(/\/$/, "")),
    restartable: false,
    overSocket: (url) => url,
    stop: unsupported,
    start: unsupported,
    freeze: unsupported,
    thaw: unsupported,
    destroy: () => Promise.resolve(),
  };
}

/**
 * The database the suite's PostgreSQL run gives a server launched on `dataDir` (the same one again
 * when that data dir is launched again, as a restart is), created when new; undefined when the
 * suite runs on SQLite (SERVICE_TEST_POSTGRES_URL unset).
 */
export async function testDatabaseFor(dataDir: string): Promise<string | undefined> {
  const shared = Deno.env.get("SERVICE_TEST_POSTGRES_URL");
  if (!shared) return undefined;
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(dataDir)),
  );
  const name = `signet_dir_${
    [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")
  }`;
  const sql = postgres(shared, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const found = await sql.unsafe("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.length === 0) await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end();
  }
  const url = new URL(shared);
  url.pathname = `/${name}`;
  return url.toString();
}

async function createDatabase(adminUrl: string, base: string): Promise<string> {
  const name = `signet_test_${Date.now().toString(36)}_${Deno.pid}_${++counter}`;
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end();
  }
  return `${base}/${name}`;
}

async function findBin(): Promise<string> {
  const found: string[] = [];
  try {
    for await (const e of Deno.readDir("/usr/lib/postgresql")) {
      if (e.isDirectory && /^\d+$/.test(e.name)) found.push(e.name);
    }
  } catch { /* not installed there */ }
  found.sort((a, b) => Number(b) - Number(a));
  for (const v of found) {
    const bin = `/usr/lib/postgresql/${v}/bin`;
    try {
      await Deno.stat(`${bin}/initdb`);
      return bin;
    } catch { /* try the next */ }
  }
  throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin");
}

// The unprivileged user the cluster runs as when we are root (PostgreSQL refuses to run as root).
async function ensureUser(): Promise<{ uid: number; gid: number }> {
  let id = await output("id", ["-u", USER]);
  if (id.code !== 0) {
    await output("useradd", ["-M", "-s", "/usr/sbin/nologin", USER]);
    id = await output("id", ["-u", USER]);
    if (id.code !== 0) throw new Error(`cannot create the user ${USER}: ${id.stderr}`);
  }
  const gid = await output("id", ["-g", USER]);
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function output(program: string, args: string[]) {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function run(program: string, args: string[], owner?: { uid: number; gid: number }) {
  const out = await new Deno.Command(program, {
    args,
    uid: owner?.uid,
    gid: owner?.gid,
    cwd: "/",
    env: { LC_ALL: "C.UTF-8" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) {
    const dec = new TextDecoder();
    throw new Error(
      `${program} ${args.join(" ")} failed (${out.code}): ${dec.decode(out.stderr)}${
        dec.decode(out.stdout)
      }`,
    );
  }
}

// Sends `signal` to the postmaster of the cluster in `dir` and to its children.
async function signalAll(dir: string, signal: Deno.Signal): Promise<void> {
  const postmaster = Number((await Deno.readTextFile(`${dir}/postmaster.pid`)).split("\n")[0]);
  const pids = [postmaster];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${e.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) pids.push(Number(e.name));
    } catch { /* gone */ }
  }
  for (const pid of pids) {
    try {
      Deno.kill(pid, signal);
    } catch { /* gone */ }
  }
}

/**
 * Whether this test run is the suite's PostgreSQL run (scripts/suite.ts). The few steps that read or
 * plant rows in the embedded database file directly are SQLite's alone; the store contract suite
 * (db/store_contract_test.ts) proves the same rules on both engines.
 */
export const ON_POSTGRES = Boolean(Deno.env.get("SERVICE_TEST_POSTGRES_URL"));
