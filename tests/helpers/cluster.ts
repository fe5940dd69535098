/** Tests of several instances on one data dir and one PostgreSQL database (testing/cluster.ts). */
import { type Cluster, type ClusterOptions, launchCluster } from "../../testing/cluster.ts";
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
