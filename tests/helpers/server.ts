/** Starts the real `signet serve` as a subprocess on free ports with a temporary data dir. */

import { type LaunchedServer, type LaunchPorts, launchSignet } from "../../testing/launch.ts";

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
