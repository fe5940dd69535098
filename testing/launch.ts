/**
 * Starts the real `signet serve` (`deno run -A main.ts serve`) as a subprocess on loopback ports
 * with a data dir, for the tests (tests/helpers/server.ts) and the bench (bench/signet.ts).
 */

import { freePort } from "./ports.ts";
import { testDatabaseFor } from "./postgres.ts";

/** A running server. */
export interface LaunchedServer {
  dataDir: string;
  /** The instance's name (SERVICE_INSTANCE_NAME, default the host name). */
  instanceName: string;
  /** Its private directory, `<data dir>/run/<instance name>` (sockets, spills, clone cache). */
  instanceDir: string;
  httpUrl: string;
  httpPort: number;
  sshPort: number;
  registryUrl: string;
  adminKey: string;
  /** PID of the server process. */
  pid: number;
  /** Everything the server wrote to stdout and stderr so far. */
  logs(): string;
  /** Stops the server (SIGTERM) and waits for it. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL and waits for it. */
  kill(): Promise<void>;
}

/** The ports of the three listeners. */
export interface LaunchPorts {
  http: number;
  ssh: number;
  registry: number;
}

/** Options for launchSignet. */
export interface LaunchOptions {
  dataDir: string;
  /** SERVICE_ADMIN_KEY; null leaves it unset (the server keeps one in `<data dir>/admin_key`). */
  adminKey: string | null;
  /** Extra env vars for the server (rate limits are off unless this turns them on). */
  env?: Record<string, string>;
  /** Ports to use (e.g. after a restart); free ones when absent. */
  ports?: LaunchPorts;
  /** Where stdout and stderr go: a file, or (absent) a pipe read into memory by this process. */
  logFile?: (ports: LaunchPorts) => string;
  /** How long to wait for /api/health (default 30 s). */
  startTimeoutMs?: number;
}

const ROOT = new URL("../", import.meta.url).pathname;

/** Starts a server and waits until its HTTP listener answers. When the ports were chosen here
 * and one was taken before the server bound it, starts again on others (three tries). */
export async function launchSignet(opts: LaunchOptions): Promise<LaunchedServer> {
  for (let attempt = 1;; attempt++) {
    try {
      return await launchOnce(opts);
    } catch (e) {
      if (opts.ports || !portTaken(e) || attempt === 3) throw e;
    }
  }
}

/**
 * Whether a launch failed because one of its ports was taken before the server bound it (the
 * server's own words for it, or Deno's error name in an older message).
 */
export function portTaken(e: unknown): boolean {
  return e instanceof Error &&
    (e.message.includes("AddrInUse") || e.message.includes("address is already in use"));
}

async function launchOnce(opts: LaunchOptions): Promise<LaunchedServer> {
  const { dataDir, adminKey } = opts;
  const ports = opts.ports ?? { http: freePort(), ssh: freePort(), registry: freePort() };
  const env: Record<string, string> = {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_BIND: `127.0.0.1:${ports.http}`,
    SERVICE_SSH_BIND: `127.0.0.1:${ports.ssh}`,
    SERVICE_REGISTRY_BIND: `127.0.0.1:${ports.registry}`,
    ...(adminKey === null ? {} : { SERVICE_ADMIN_KEY: adminKey }),
    SERVICE_BASE_URL: `http://127.0.0.1:${ports.http}`,
    // Throughput tests and the bench would trip the limits; the hostile suite turns them back on.
    SERVICE_RATE_LIMITS: "off",
    ...opts.env,
  };
  // The suite's PostgreSQL run (SERVICE_TEST_POSTGRES_URL): one database per data dir.
  if (env.SERVICE_DATABASE_URL === undefined) {
    const url = await testDatabaseFor(dataDir);
    if (url !== undefined) env.SERVICE_DATABASE_URL = url;
  }
  const logFile = opts.logFile?.(ports);
  // With a log file the output goes there directly (`exec`: the child's pid is the server's), as
  // to a log file in production: read through a pipe, the bench's own process spent CPU on it.
  const child = logFile === undefined
    ? new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}main.ts`, "serve"],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn()
    : new Deno.Command("sh", {
      args: [
        "-c",
        'exec "$0" run -A "$1" serve >"$2" 2>&1',
        Deno.execPath(),
        `${ROOT}main.ts`,
        logFile,
      ],
      env,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
  let logText = "";
  let drained: Promise<unknown> = Promise.resolve();
  if (logFile === undefined) {
    const decoder = new TextDecoder();
    const drain = async (s: ReadableStream<Uint8Array>) => {
      for await (const chunk of s) logText += decoder.decode(chunk, { stream: true });
    };
    drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  }
  const logs = logFile === undefined ? () => logText : () => {
    try {
      return Deno.readTextFileSync(logFile);
    } catch {
      return "";
    }
  };
  const httpUrl = `http://127.0.0.1:${ports.http}`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  let exited = false;
  child.status.then(() => (exited = true));
  while (true) {
    if (exited) {
      await drained;
      throw new Error(`server exited during start:\n${logs().slice(-20_000)}`);
    }
    try {
      // Connection: close, so no pooled connection outlives the check (tests count connections).
      const res = await fetch(`${httpUrl}/api/health`, { headers: { connection: "close" } });
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${logs().slice(-20_000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const finish = async (signal: Deno.Signal) => {
    if (!exited) {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    }
    await child.status;
    await drained;
  };
  const instanceName = env.SERVICE_INSTANCE_NAME || Deno.hostname();
  return {
    dataDir,
    instanceName,
    instanceDir: `${dataDir}/run/${instanceName}`,
    httpUrl,
    httpPort: ports.http,
    sshPort: ports.ssh,
    registryUrl: `http://127.0.0.1:${ports.registry}`,
    adminKey: adminKey ?? (await Deno.readTextFile(`${dataDir}/admin_key`)).trim(),
    pid: child.pid,
    logs,
    stop: () => finish("SIGTERM"),
    kill: () => finish("SIGKILL"),
  };
}
