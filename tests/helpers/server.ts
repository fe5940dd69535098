/** Starts the real `signet serve` as a subprocess on free ports with a temporary data dir. */

import { freePort } from "./ports.ts";

/** A running test server. */
export interface TestServer {
  dataDir: string;
  httpUrl: string;
  httpPort: number;
  sshPort: number;
  registryUrl: string;
  adminKey: string;
  /** PID of the server process. */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  logs(): string;
  /** Stops the server (SIGTERM) and waits for it. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL and waits for it. */
  kill(): Promise<void>;
}

/** Options for startServer. */
export interface TestServerOptions {
  /** Reuse an existing data dir (e.g. to test restarts). */
  dataDir?: string;
  /** Extra env vars for the server. */
  env?: Record<string, string>;
  /** Ports to reuse (e.g. after a restart). */
  ports?: { http: number; ssh: number; registry: number };
}

const ROOT = new URL("../../", import.meta.url).pathname;

/** Starts a server and waits until its HTTP listener answers. When the ports were
 * chosen here and one was taken before the server bound it, starts again on others. */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "signet-test-" });
  for (let attempt = 1;; attempt++) {
    try {
      return await startOnce({ ...opts, dataDir });
    } catch (e) {
      const portTaken = e instanceof Error && e.message.includes("AddrInUse");
      if (opts.ports || !portTaken || attempt === 3) throw e;
    }
  }
}

async function startOnce(opts: TestServerOptions & { dataDir: string }): Promise<TestServer> {
  const dataDir = opts.dataDir;
  const ports = opts.ports ?? { http: freePort(), ssh: freePort(), registry: freePort() };
  const adminKey = "test-admin-key-0123456789abcdef";
  const env: Record<string, string> = {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_BIND: `127.0.0.1:${ports.http}`,
    SERVICE_SSH_BIND: `127.0.0.1:${ports.ssh}`,
    SERVICE_REGISTRY_BIND: `127.0.0.1:${ports.registry}`,
    SERVICE_ADMIN_KEY: adminKey,
    SERVICE_BASE_URL: `http://127.0.0.1:${ports.http}`,
    // Throughput tests would trip the limits; the hostile suite turns them back on.
    SERVICE_RATE_LIMITS: "off",
    ...opts.env,
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "serve"],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let logText = "";
  const decoder = new TextDecoder();
  const drain = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) logText += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const httpUrl = `http://127.0.0.1:${ports.http}`;
  const deadline = Date.now() + 30_000;
  let exited = false;
  child.status.then(() => (exited = true));
  while (true) {
    if (exited) throw new Error(`server exited during start:\n${logText}`);
    try {
      // Connection: close, so no pooled connection outlives the check (tests count connections).
      const res = await fetch(`${httpUrl}/api/health`, { headers: { connection: "close" } });
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${logText}`);
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
  return {
    dataDir,
    httpUrl,
    httpPort: ports.http,
    sshPort: ports.ssh,
    registryUrl: `http://127.0.0.1:${ports.registry}`,
    adminKey,
    pid: child.pid,
    logs: () => logText,
    stop: () => finish("SIGTERM"),
    kill: () => finish("SIGKILL"),
  };
}
