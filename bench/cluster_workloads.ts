/**
 * The cluster against one instance: registry GET bot req/s and N parallel clones (HTTP and SSH)
 * through three setups of the same build on one PostgreSQL database and data dir
 * (testing/cluster.ts): instance `a` addressed directly, nginx in front of `a` alone, and nginx in
 * front of `a` and `b` (the cluster of `deno task cluster`). Rounds rotate the setups' order so the
 * machine's drift hits all three alike. On two cores this cannot show scaling (server, PostgreSQL,
 * nginx and the load generator share them); it shows what the balancer and a second instance cost.
 */
import { progress } from "./util.ts";
import { type ApiOptions, type ApiRow } from "./api_workloads.ts";
import { getBotLoad, seedBots } from "./engine_workloads.ts";
import { type ClientContext, parallelClones, type ParallelResult } from "./git_workloads.ts";
import { mirrorInto } from "./repos.ts";
import { sshCommand, type Transport } from "./transport.ts";
import { type BalancedCluster, startBalancedCluster } from "../testing/cluster.ts";
import { balancerConfig, findNginx, type RunningNginx, startNginx } from "../testing/nginx.ts";
import { freePort } from "../testing/ports.ts";
import type { TestPostgres } from "../testing/postgres.ts";
import { login, mintInvite, postJson, type TestKey } from "../testing/accounts.ts";

/** The setups, in the order the tables show them. */
export const CLUSTER_SETUPS = ["one", "nginx-one", "nginx-two"] as const;
export type ClusterSetup = typeof CLUSTER_SETUPS[number];

/** How the report names each setup. */
export const SETUP_LABELS: Record<ClusterSetup, string> = {
  one: "one instance",
  "nginx-one": "nginx + one instance",
  "nginx-two": "nginx + two instances",
};

/** What the cluster phase measured: one entry per round and setup. */
export interface ClusterResults {
  bots: number;
  getSeconds: number;
  connections: number;
  clones: number;
  get: Record<ClusterSetup, ApiRow[]>;
  httpClones: Record<ClusterSetup, ParallelResult[]>;
  sshClones: Record<ClusterSetup, ParallelResult[]>;
  /** nginx's worker processes in both balancers. */
  balancerWorkers: number;
}

/** Settings of the cluster phase. */
export interface ClusterOptions extends ApiOptions {
  /** Rounds of GET bot per setup. */
  rounds: number;
  /** Rounds of parallel clones per setup and transport. */
  cloneRounds: number;
  getSeconds: number;
  /** Clones started at once. */
  parallel: number;
  /** The bench's small repository (bare), cloned in the parallel clones. */
  smallRepo: string;
  home: string;
  /** The bench key: the `bench` account signs up with it. */
  key: TestKey;
  /** A PostgreSQL cluster to make the database in; one of its own when absent. */
  postgres?: TestPostgres;
}

/** A setup's three public addresses. */
interface Target {
  httpUrl: string;
  registryUrl: string;
  sshPort: number;
}

/** Runs `load` on each setup once per round, the order rotated every round. */
async function rotate<T>(
  rounds: number,
  load: (setup: ClusterSetup) => Promise<T>,
): Promise<Record<ClusterSetup, T[]>> {
  const out = { one: [], "nginx-one": [], "nginx-two": [] } as Record<ClusterSetup, T[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < CLUSTER_SETUPS.length; i++) {
      const setup = CLUSTER_SETUPS[(i + round) % CLUSTER_SETUPS.length];
      out[setup].push(await load(setup));
    }
  }
  return out;
}

/** The `bench` account and its repositories http-small and ssh-small in the shared data dir. */
async function setupRepos(cluster: BalancedCluster, opts: ClusterOptions): Promise<string> {
  const at = { httpUrl: cluster.httpUrl, adminKey: cluster.adminKey };
  const signup = await postJson(`${cluster.httpUrl}/api/signup`, {
    username: "bench",
    public_key: opts.key.publicLine,
    invite_code: await mintInvite(at),
  });
  if (signup.status !== 201) throw new Error(`signup failed: ${JSON.stringify(signup.body)}`);
  const user = { id: (signup.body.user as { id: number }).id, username: "bench", key: opts.key };
  const token = await login(at, user);
  for (const name of ["http-small", "ssh-small"]) {
    const r = await postJson(`${cluster.httpUrl}/api/repos`, { name }, {
      Authorization: `Bearer ${token}`,
    });
    if (r.status !== 201) throw new Error(`repo create failed: ${JSON.stringify(r.body)}`);
    await mirrorInto(opts.smallRepo, `${cluster.dataDir}/repos/bench/${name}.git`, opts.home);
  }
  return token;
}

/** Git over `kind` to the small repository at `target`. */
function transport(
  setup: ClusterSetup,
  target: Target,
  kind: "http" | "ssh",
  token: string,
  key: TestKey,
): Transport {
  return {
    id: `cluster-${setup}-${kind}`,
    label: `${SETUP_LABELS[setup]} over ${kind}`,
    kind,
    url: () =>
      kind === "http"
        ? `${target.httpUrl}/bench/http-small.git`
        : `ssh://git@127.0.0.1:${target.sshPort}/bench/ssh-small.git`,
    env: kind === "ssh" ? { GIT_SSH_COMMAND: sshCommand(key.privatePath) } : {},
    gitArgs: kind === "http" ? ["-c", `http.extraHeader=Authorization: Bearer ${token}`] : [],
    server: null,
  };
}

/** Starts the cluster and a balancer in front of its first instance alone; measures; stops. */
export async function runClusterWorkloads(
  opts: ClusterOptions,
  client: ClientContext,
): Promise<ClusterResults> {
  const balancerWorkers = 2;
  progress("starting a cluster: PostgreSQL, two instances, nginx");
  const cluster = await startBalancedCluster({
    postgres: opts.postgres,
    logFiles: true,
    accessLog: false,
    upstreamHeader: false,
    balancerWorkers,
    failTimeoutSeconds: 10,
    // The README's recipe: every SSH client reaches the instances from the balancer's address.
    env: {
      SERVICE_SSH_MAX_CONNECTIONS_PER_IP: "4096",
      SERVICE_SSH_MAX_STARTUPS_PER_PREFIX: "256",
    },
  });
  let single: RunningNginx | null = null;
  try {
    const a = cluster.instances[0];
    const { nginx, streamModule } = findNginx();
    const dir = `${cluster.workDir}/nginx-one`;
    const ports = { http: freePort(), registry: freePort(), ssh: freePort() };
    single = await startNginx(
      nginx,
      dir,
      balancerConfig({
        dir,
        streamModule,
        http: { listen: ports.http, upstreams: [a.ports.http] },
        registry: { listen: ports.registry, upstreams: [a.ports.registry] },
        ssh: { listen: ports.ssh, upstreams: [a.ports.ssh] },
        workers: balancerWorkers,
      }),
      ports.http,
    );
    const targets: Record<ClusterSetup, Target> = {
      one: { httpUrl: a.httpUrl, registryUrl: a.registryUrl, sshPort: a.ports.ssh },
      "nginx-one": {
        httpUrl: `http://127.0.0.1:${ports.http}`,
        registryUrl: `http://127.0.0.1:${ports.registry}`,
        sshPort: ports.ssh,
      },
      "nginx-two": {
        httpUrl: cluster.httpUrl,
        registryUrl: cluster.registryUrl,
        sshPort: cluster.sshPort,
      },
    };

    const token = await setupRepos(cluster, opts);
    progress(`seeding ${opts.bots} bots`);
    await seedBots(a, cluster.databaseUrl, opts.workDir, opts.bots);

    // Untimed: every instance's code warm, its clone cache filled (round robin reaches both).
    for (const setup of CLUSTER_SETUPS) {
      await getBotLoad(targets[setup], opts, opts.bots, 1);
      for (const kind of ["http", "ssh"] as const) {
        await parallelClones(transport(setup, targets[setup], kind, token, opts.key), client, 4);
      }
    }
    const get = await rotate(
      opts.rounds,
      (setup) => getBotLoad(targets[setup], opts, opts.bots, opts.getSeconds),
    );
    const clones = (kind: "http" | "ssh") =>
      rotate(opts.cloneRounds, async (setup) => {
        progress(`${opts.parallel} parallel clones over ${kind}, ${SETUP_LABELS[setup]}`);
        const r = await parallelClones(
          transport(setup, targets[setup], kind, token, opts.key),
          client,
          opts.parallel,
        );
        if (r.failures) progress(`  ${r.failures} failed: ${r.firstError}`);
        return r;
      });
    return {
      bots: opts.bots,
      getSeconds: opts.getSeconds,
      connections: opts.connections,
      clones: opts.parallel,
      get,
      httpClones: await clones("http"),
      sshClones: await clones("ssh"),
      balancerWorkers,
    };
  } finally {
    await single?.stop();
    await cluster.stop();
  }
}
