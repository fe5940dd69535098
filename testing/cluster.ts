/**
 * Several `signet serve` instances on one data dir and one PostgreSQL database, as a cluster
 * runs them (each with its own SERVICE_INSTANCE_NAME and its own ports), for the tests and the
 * bench. The caller brings the database (testing/postgres.ts).
 */
import { type LaunchedServer, launchSignet } from "./launch.ts";

/** Running instances sharing one data dir and one database. */
export interface Cluster {
  dataDir: string;
  databaseUrl: string;
  /** The instances, in the order of `names`. */
  instances: LaunchedServer[];
  /** Starts one more instance (or one again after it stopped) named `name`. */
  launch(name: string, env?: Record<string, string>): Promise<LaunchedServer>;
  /** Stops every instance still running (SIGTERM) and waits for them. */
  stop(): Promise<void>;
}

/** Options of `launchCluster`. */
export interface ClusterOptions {
  /** The shared PostgreSQL database (a fresh one per cluster: `TestPostgres.createDatabase`). */
  databaseUrl: string;
  /** The instances' names (SERVICE_INSTANCE_NAME), e.g. `["a", "b"]`. */
  names: string[];
  /** The shared data dir; a fresh temporary one when absent. */
  dataDir?: string;
  /** SERVICE_ADMIN_KEY for every instance; null leaves it unset (the instances share the file). */
  adminKey?: string | null;
  /** Extra env vars for every instance. */
  env?: Record<string, string>;
}

/** The admin key tests use. */
export const CLUSTER_ADMIN_KEY = "test-admin-key-0123456789abcdef";

/** Starts every instance at the same moment and waits until each answers /api/health. */
export async function launchCluster(opts: ClusterOptions): Promise<Cluster> {
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "signet-cluster-" });
  const adminKey = opts.adminKey === undefined ? CLUSTER_ADMIN_KEY : opts.adminKey;
  const launched: LaunchedServer[] = [];
  const launch = async (name: string, env: Record<string, string> = {}) => {
    const server = await launchSignet({
      dataDir,
      adminKey,
      env: {
        ...opts.env,
        ...env,
        SERVICE_INSTANCE_NAME: name,
        SERVICE_DATABASE_URL: opts.databaseUrl,
      },
    });
    launched.push(server);
    return server;
  };
  const started = await Promise.allSettled(opts.names.map((name) => launch(name)));
  const failed = started.find((r) => r.status === "rejected");
  if (failed) {
    await Promise.all(launched.map((s) => s.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const instances = started.map((r) => (r as PromiseFulfilledResult<LaunchedServer>).value);
  return {
    dataDir,
    databaseUrl: opts.databaseUrl,
    instances,
    launch,
    async stop() {
      await Promise.all(launched.map((s) => s.stop()));
    },
  };
}
