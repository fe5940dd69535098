/**
 * Tests of several instances on one data dir and one PostgreSQL database (testing/cluster.ts):
 * `clusterTest` for the instances alone, `balancedTest` for the cluster behind nginx.
 */
import {
  type BalancedCluster,
  type BalancedClusterOptions,
  type Cluster,
  type ClusterInstance,
  type ClusterOptions,
  launchCluster,
  startBalancedCluster,
} from "../../testing/cluster.ts";
import {
  mintInvite,
  postJson,
  sshSign,
  type TestKey,
  type TestUser,
} from "../../testing/accounts.ts";
import type { LaunchedServer } from "../../testing/launch.ts";
import { ON_POSTGRES, startPostgres, type TestPostgres } from "../../testing/postgres.ts";
import { SERVER_TEST } from "./server.ts";

/** Options of `clusterTest`: the cluster's, without its database (the test makes one). */
export type ClusterTestOptions = Omit<ClusterOptions, "databaseUrl">;

/**
 * A `Deno.test` that starts a throwaway PostgreSQL (or a fresh database in the suite's) and the
 * instances `opts.names` on one fresh data dir, runs `fn`, then stops them all and removes the
 * data dir, pass or fail (on a failure it prints the end of each instance's log first). It runs
 * once, in the SQLite run: on the suite's PostgreSQL run it would only repeat itself.
 */
export function clusterTest(
  name: string,
  opts: ClusterTestOptions,
  fn: (cluster: Cluster, t: Deno.TestContext, pg: TestPostgres) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: ON_POSTGRES,
    ...SERVER_TEST,
    async fn(t) {
      const pg = await startPostgres();
      const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "signet-cluster-" });
      let cluster: Cluster | undefined;
      try {
        cluster = await launchCluster({ ...opts, dataDir, databaseUrl: await pg.createDatabase() });
        await fn(cluster, t, pg);
      } catch (err) {
        for (const s of cluster?.instances ?? []) {
          console.error(`${s.instanceName} log (the end):\n${s.logs().slice(-10_000)}`);
        }
        throw err;
      } finally {
        await cluster?.stop();
        await pg.destroy();
        if (opts.dataDir === undefined) {
          await Deno.remove(dataDir, { recursive: true }).catch(() => {});
        }
      }
    },
  });
}

/**
 * A `Deno.test` that starts a cluster behind nginx (`startBalancedCluster`), runs `fn` with it
 * (steps share it: one cluster per test file keeps the suite short) and always stops it, printing
 * the end of every instance's log and nginx's on a failure. These tests belong to the suite's
 * PostgreSQL run (scripts/suite.ts leaves tests/e2e/cluster/ out of the SQLite run), where the
 * cluster's database is a fresh one in the suite's PostgreSQL.
 */
export function balancedTest(
  name: string,
  opts: BalancedClusterOptions,
  fn: (cluster: BalancedCluster, t: Deno.TestContext) => Promise<void>,
): void {
  Deno.test({
    name,
    ...SERVER_TEST,
    async fn(t) {
      const cluster = await startBalancedCluster(opts);
      try {
        await fn(cluster, t);
      } catch (err) {
        console.error(cluster.describe());
        throw err;
      } finally {
        await cluster.stop();
      }
    },
  });
}

/**
 * The shape testing/accounts.ts takes for a server (`httpUrl`, `adminKey`), for an instance or
 * for the balancer.
 */
export function via(cluster: BalancedCluster, at?: ClusterInstance): LaunchedServer {
  const httpUrl = at ? at.httpUrl : cluster.httpUrl;
  return { httpUrl, adminKey: cluster.adminKey } as LaunchedServer;
}

/** The instance that answered `res` through the balancer (nginx's X-Signet-Upstream, last hop). */
export function answeredBy(cluster: BalancedCluster, res: Response): string | undefined {
  const hops = res.headers.get("x-signet-upstream")?.split(",").map((h) => h.trim());
  return hops ? cluster.instanceAt(hops[hops.length - 1])?.name : undefined;
}

/** Signs up `username` with `key` and a fresh invite at `url` (an instance or the balancer). */
export async function signUpAt(
  cluster: BalancedCluster,
  url: string,
  username: string,
  key: TestKey,
): Promise<TestUser> {
  const r = await postJson(`${url}/api/signup`, {
    username,
    public_key: key.publicLine,
    invite_code: await mintInvite(via(cluster)),
  });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: (r.body.user as { id: number }).id, username, key };
}

/** A login challenge issued at `issuer`, signed and verified at `verifier`; the token. */
export async function loginAcross(
  issuer: string,
  verifier: string,
  user: TestUser,
): Promise<{ status: number; token?: string; body: Record<string, unknown> }> {
  const ch = await postJson(`${issuer}/api/login/challenge`, { username: user.username });
  if (ch.status !== 200) {
    throw new Error(`challenge failed: ${ch.status} ${JSON.stringify(ch.body)}`);
  }
  const nonce = ch.body.nonce as string;
  const r = await postJson(`${verifier}/api/login/verify`, {
    username: user.username,
    nonce,
    signature: await sshSign(user.key, nonce),
  });
  return { status: r.status, token: r.body.token as string | undefined, body: r.body };
}
