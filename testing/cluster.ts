/**
 * Several `signet serve` instances on one data dir and one PostgreSQL database, as a cluster
 * runs them (each with its own SERVICE_INSTANCE_NAME and its own ports), for the tests and the
 * bench: `launchCluster` starts the instances on a database the caller brings;
 * `startBalancedCluster` starts the whole cluster of `deno task cluster` (tests/e2e/cluster/, the
 * bench): a throwaway PostgreSQL (testing/postgres.ts), the instances, and nginx in front
 * balancing hosting HTTP, registry HTTP and SSH round-robin (testing/nginx.ts).
 */
import { type LaunchedServer, type LaunchPorts, launchSignet, portTaken } from "./launch.ts";
import { balancerConfig, findNginx, type RunningNginx, startNginx } from "./nginx.ts";
import { freePort } from "./ports.ts";
import { startPostgres, type TestPostgres } from "./postgres.ts";

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

/** One instance of the cluster, addressed directly (not through the balancer). */
export interface ClusterInstance {
  /** Its SERVICE_INSTANCE_NAME: `a`, `b`, … */
  readonly name: string;
  /** Its own addresses; the same after a restart. */
  readonly ports: LaunchPorts;
  readonly httpUrl: string;
  readonly registryUrl: string;
  /** Whether it runs now. */
  readonly running: boolean;
  /** The PID of the running process (0 when stopped). */
  readonly pid: number;
  /** Everything it logged, over every run. */
  logs(): string;
  /** `kill -9`, waiting for it to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful stop), waiting for it to be gone. */
  stop(): Promise<void>;
  /** Starts it again on the same ports, data dir and database; resolves once it answers. */
  restart(): Promise<void>;
}

/** A running cluster behind its balancer. */
export interface BalancedCluster {
  /** The balancer's public addresses. */
  httpUrl: string;
  registryUrl: string;
  sshPort: number;
  /** The shared admin key, data directory and database. */
  adminKey: string;
  /** Where nginx's files (nginx/) and the instances' log files are; removed by stop. */
  workDir: string;
  dataDir: string;
  databaseUrl: string;
  instances: ClusterInstance[];
  /** The instance whose HTTP or registry port is `address` (`127.0.0.1:port`), if any. */
  instanceAt(address: string): ClusterInstance | undefined;
  /** nginx's error log so far. */
  balancerErrors(): string;
  /** The last lines of every instance's log and nginx's, for a failing test's output. */
  describe(): string;
  /** Stops nginx, the instances and a PostgreSQL it started; removes what it created. */
  stop(): Promise<void>;
}

/** Options for startBalancedCluster. */
export interface BalancedClusterOptions {
  /** Instances (default 2). */
  instances?: number;
  /** Extra env for every instance (rate limits are off unless this turns them on). */
  env?: Record<string, string>;
  /**
   * SERVICE_ADMIN_KEY for every instance (default a fixed test key); null leaves it unset: the
   * instances share the one they generate into `<data dir>/admin_key`.
   */
  adminKey?: string | null;
  /** The shared data directory (default a fresh temporary one, removed by stop). */
  dataDir?: string;
  /** A PostgreSQL cluster to make the database in (default one from startPostgres). */
  postgres?: TestPostgres;
  /** The balancer's public ports (default free ones). */
  ports?: Partial<LaunchPorts>;
  /** Instances' output to files (`<name>.<run>.log` in the cluster's directory), not memory. */
  logFiles?: boolean;
  /** nginx worker processes (default 1). */
  balancerWorkers?: number;
  /** Seconds a failed instance is left out by nginx (default 1: tests see it rejoin soon). */
  failTimeoutSeconds?: number;
  /** nginx's access log in its directory (default on; the bench turns it off). */
  accessLog?: boolean;
  /** nginx names the instance that answered in X-Signet-Upstream (default on; the bench: off). */
  upstreamHeader?: boolean;
}

/** Starts PostgreSQL (unless given), the instances (all at once) and nginx. */
export async function startBalancedCluster(
  opts: BalancedClusterOptions = {},
): Promise<BalancedCluster> {
  const { nginx, streamModule } = findNginx();
  const count = opts.instances ?? 2;
  const work = await Deno.makeTempDir({ prefix: "signet-cluster-" });
  const dataDir = opts.dataDir ?? `${work}/data`;
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const adminKey = opts.adminKey === undefined ? CLUSTER_ADMIN_KEY : opts.adminKey;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    stops.length = 0;
    await Deno.remove(work, { recursive: true }).catch(() => {});
  };
  try {
    const postgres = opts.postgres ?? await startPostgres();
    if (!opts.postgres) stops.push(() => postgres.destroy());
    const databaseUrl = await postgres.createDatabase();
    const balancer = {
      http: opts.ports?.http ?? freePort(),
      registry: opts.ports?.registry ?? freePort(),
      ssh: opts.ports?.ssh ?? freePort(),
    };
    const baseEnv: Record<string, string> = {
      SERVICE_DATABASE_URL: databaseUrl,
      // Clone URLs and messages name the balancer, never an instance.
      SERVICE_BASE_URL: `http://127.0.0.1:${balancer.http}`,
      SERVICE_SSH_PUBLIC_PORT: String(balancer.ssh),
      SERVICE_TRUSTED_PROXIES: "127.0.0.1",
      ...opts.env,
    };
    const instances = Array.from(
      { length: count },
      (_, i) =>
        instance(String.fromCharCode(97 + i), {
          dataDir,
          adminKey,
          env: baseEnv,
          logDir: opts.logFiles ? work : undefined,
        }),
    );
    stops.push(async () => {
      await Promise.all(instances.map((i) => i.stop()));
    });
    // All at once, as a cluster's machines boot: the shared keys must come out the same.
    await Promise.all(instances.map((i) => i.restart()));
    const proxy = await startNginx(
      nginx,
      `${work}/nginx`,
      balancerConfig({
        dir: `${work}/nginx`,
        streamModule,
        http: { listen: balancer.http, upstreams: instances.map((i) => i.ports.http) },
        registry: {
          listen: balancer.registry,
          upstreams: instances.map((i) => i.ports.registry),
        },
        ssh: { listen: balancer.ssh, upstreams: instances.map((i) => i.ports.ssh) },
        workers: opts.balancerWorkers,
        failTimeoutSeconds: opts.failTimeoutSeconds ?? 1,
        accessLog: opts.accessLog ?? true,
        upstreamHeader: opts.upstreamHeader ?? true,
      }),
      balancer.http,
    );
    stops.push(() => proxy.stop());
    return cluster(balancer, {
      // Generated by the instances when not given: the one they share.
      adminKey: adminKey ?? (await Deno.readTextFile(`${dataDir}/admin_key`)).trim(),
      workDir: work,
      dataDir,
      databaseUrl,
      instances,
      proxy,
      stopAll,
    });
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function cluster(
  balancer: LaunchPorts,
  parts: {
    adminKey: string;
    workDir: string;
    dataDir: string;
    databaseUrl: string;
    instances: ClusterInstance[];
    proxy: RunningNginx;
    stopAll: () => Promise<void>;
  },
): BalancedCluster {
  const { instances, proxy } = parts;
  return {
    httpUrl: `http://127.0.0.1:${balancer.http}`,
    registryUrl: `http://127.0.0.1:${balancer.registry}`,
    sshPort: balancer.ssh,
    adminKey: parts.adminKey,
    workDir: parts.workDir,
    dataDir: parts.dataDir,
    databaseUrl: parts.databaseUrl,
    instances,
    instanceAt: (address) =>
      instances.find((i) =>
        [i.ports.http, i.ports.registry, i.ports.ssh].some((p) => address === `127.0.0.1:${p}`)
      ),
    balancerErrors: () => proxy.errors(),
    describe: () =>
      [
        ...instances.map((i) =>
          `--- instance ${i.name} (the end of its log)\n${i.logs().slice(-6000)}`
        ),
        `--- nginx error log\n${proxy.errors().slice(-4000)}`,
      ].join("\n"),
    stop: parts.stopAll,
  };
}

/** An instance handle over launchSignet: stopped until `restart`. */
function instance(
  name: string,
  base: {
    dataDir: string;
    adminKey: string | null;
    env: Record<string, string>;
    logDir?: string;
  },
): ClusterInstance {
  const ports = { http: freePort(), ssh: freePort(), registry: freePort() };
  let server: LaunchedServer | null = null;
  /** What earlier runs logged (in memory), or the log file of every run so far. */
  let earlier = "";
  const files: string[] = [];
  const finish = async (how: "kill" | "stop") => {
    if (!server) return;
    const s = server;
    server = null;
    await s[how]();
    if (!base.logDir) earlier += s.logs();
  };
  let started = false;
  return {
    name,
    ports,
    get httpUrl() {
      return `http://127.0.0.1:${ports.http}`;
    },
    get registryUrl() {
      return `http://127.0.0.1:${ports.registry}`;
    },
    get running() {
      return server !== null;
    },
    get pid() {
      return server?.pid ?? 0;
    },
    logs() {
      if (!base.logDir) return earlier + (server?.logs() ?? "");
      return files.map((f) => {
        try {
          return Deno.readTextFileSync(f);
        } catch {
          return "";
        }
      }).join("");
    },
    kill: () => finish("kill"),
    stop: () => finish("stop"),
    async restart() {
      if (server) throw new Error(`instance ${name} is running`);
      const logFile = base.logDir ? `${base.logDir}/${name}.${files.length + 1}.log` : undefined;
      if (logFile) files.push(logFile);
      for (let attempt = 1;; attempt++) {
        try {
          server = await launchSignet({
            dataDir: base.dataDir,
            adminKey: base.adminKey,
            env: { ...base.env, SERVICE_INSTANCE_NAME: name },
            ports,
            logFile: logFile ? () => logFile : undefined,
            startTimeoutMs: 60_000,
          });
          started = true;
          return;
        } catch (e) {
          // Before the first start nothing points at these ports yet (the balancer is configured
          // after): another process took one since it was picked, so pick others.
          if (started || !portTaken(e) || attempt === 3) throw e;
          Object.assign(ports, { http: freePort(), ssh: freePort(), registry: freePort() });
        }
      }
    },
  };
}
