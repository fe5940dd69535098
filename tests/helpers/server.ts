/** Starts the real `signet serve` as a subprocess on free ports with a temporary data dir. */

import { DatabaseSync } from "node:sqlite";
import { type LaunchedServer, type LaunchPorts, launchSignet } from "../../testing/launch.ts";
import { ON_POSTGRES } from "../../testing/postgres.ts";
import { assertEquals } from "./assert.ts";

/** A running test server. */
export type TestServer = LaunchedServer;

/** Options for startServer. */
export interface TestServerOptions {
  /** Reuse an existing data dir (e.g. to test restarts). */
  dataDir?: string;
  /** Extra env vars for the server. */
  env?: Record<string, string>;
  /** Ports to reuse (e.g. after a restart). */
  ports?: LaunchPorts;
}

/** Starts a server and waits until its HTTP listener answers (see testing/launch.ts). */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "signet-test-" });
  return await launchSignet({
    dataDir,
    adminKey: "test-admin-key-0123456789abcdef",
    env: opts.env,
    ports: opts.ports,
  });
}

/**
 * `signet serve` as a bare child process on ports the system picks, for tests that watch how it
 * starts or stops (exit codes, signals) rather than talk to it; `env` overrides the defaults.
 */
export function serveProcess(dataDir: string, env: Record<string, string> = {}): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname, "serve"],
    env: {
      NO_COLOR: "1",
      SERVICE_DATA_DIR: dataDir,
      SERVICE_ADMIN_KEY: "test-admin-key-0123456789abcdef",
      SERVICE_HTTP_BIND: "127.0.0.1:0",
      SERVICE_SSH_BIND: "127.0.0.1:0",
      SERVICE_REGISTRY_BIND: "127.0.0.1:0",
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/**
 * Options for a `Deno.test` that starts servers or child processes: their sockets and timers
 * outlive single steps by design, so Deno's op and resource sanitizers are off.
 */
export const SERVER_TEST = { sanitizeOps: false, sanitizeResources: false } as const;

/** Options for `serverTest`: the server's (`startTestServer`) and the test's own. */
export interface ServerTestOptions extends TestServerOptions {
  /** Skips the test when true (e.g. `ON_POSTGRES` from testing/postgres.ts). */
  ignore?: boolean;
}

/**
 * A `Deno.test` (with `SERVER_TEST`) that starts a server, runs `fn` with it and always stops it
 * afterwards and removes the data dir it made, pass or fail (on a failure it prints the end of the
 * server's log first). `fn` may stop the server itself.
 */
export function serverTest(
  name: string,
  opts: ServerTestOptions,
  fn: (server: TestServer, t: Deno.TestContext) => Promise<void>,
): void {
  const { ignore, ...serverOpts } = opts;
  Deno.test({
    name,
    ignore,
    ...SERVER_TEST,
    async fn(t) {
      const server = await startTestServer(serverOpts);
      try {
        await fn(server, t);
      } catch (err) {
        console.error(`server log (the end):\n${server.logs().slice(-20_000)}`);
        throw err;
      } finally {
        await server.stop();
        if (serverOpts.dataDir === undefined) {
          await Deno.remove(server.dataDir, { recursive: true }).catch(() => {});
        }
      }
    },
  });
}

/** A fresh temporary directory for a git HOME (or other scratch files); `prefix` names it. */
export function tempHome(prefix = "signet-home-"): Promise<string> {
  return Deno.makeTempDir({ prefix });
}

/** What a child process (e.g. `serveProcess`) writes to a piped stream, read as the test asks. */
export class StreamLog {
  /** Everything read so far. */
  text = "";
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #stream: ReadableStream<Uint8Array>;
  #decoder = new TextDecoder();

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#stream = stream;
    this.#reader = stream.getReader();
  }

  /** Reads until the text includes `needle` (to the stream's end when absent) or `ms` have passed. */
  async readUntil(needle?: string, ms = 60_000): Promise<string> {
    const deadline = Date.now() + ms;
    while ((needle === undefined || !this.text.includes(needle)) && Date.now() < deadline) {
      const { value, done } = await this.#reader.read();
      if (done) break;
      this.text += this.#decoder.decode(value, { stream: true });
    }
    return this.text;
  }

  /** Stops reading and discards the rest of the stream. */
  async cancel(): Promise<void> {
    this.#reader.releaseLock();
    await this.#stream.cancel();
  }
}

/**
 * SQLite's integrity check on the server's database file passes; on the PostgreSQL run, where the
 * server keeps no file, it checks nothing.
 */
export function assertDatabaseIntact(server: { dataDir: string }): void {
  if (ON_POSTGRES) return;
  const db = new DatabaseSync(`${server.dataDir}/signet.db`, { readOnly: true });
  const rows = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
  db.close();
  assertEquals(rows.map((r) => r.integrity_check), ["ok"]);
}

/** The server's log lines at error level. */
export function errorLines(server: TestServer): string[] {
  return server.logs().split("\n").filter((l) => l.includes('"level":"error"'));
}
