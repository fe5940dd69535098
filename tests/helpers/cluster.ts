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
  type TestServer,
  type TestUser,
} from "../../testing/accounts.ts";
import { gitEnv, run, type RunResult } from "../../testing/run.ts";
import { gitSshEnv } from "./ssh.ts";
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
export function via(cluster: BalancedCluster, at?: ClusterInstance): TestServer {
  return { httpUrl: at ? at.httpUrl : cluster.httpUrl, adminKey: cluster.adminKey };
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

/** Where git reaches the cluster: the balancer or one instance. */
export interface Entry {
  httpUrl: string;
  sshPort: number;
}

/** The balancer as an Entry. */
export function balancer(cluster: BalancedCluster): Entry {
  return { httpUrl: cluster.httpUrl, sshPort: cluster.sshPort };
}

/** An instance as an Entry (its own ports, not the balancer). */
export function direct(instance: ClusterInstance): Entry {
  return { httpUrl: instance.httpUrl, sshPort: instance.ports.ssh };
}

/** A repository as git reaches it over one transport: its URL, git options and env. */
export interface Remote {
  url: string;
  /** Options before git's command (the bearer header over HTTP). */
  args: string[];
  env: Record<string, string>;
}

/** `owner/name` at `entry` over `transport`, authenticated with `token` (HTTP) or `key` (SSH). */
export function remote(
  entry: Entry,
  transport: "http" | "ssh",
  repo: string,
  auth: { token: string; key: TestKey },
  home: string,
): Remote {
  if (transport === "http") {
    return {
      url: `${entry.httpUrl}/${repo}.git`,
      args: ["-c", `http.extraHeader=Authorization: Bearer ${auth.token}`],
      env: gitEnv(home),
    };
  }
  return {
    url: `ssh://git@127.0.0.1:${entry.sshPort}/${repo}.git`,
    args: [],
    env: gitSshEnv(entry.sshPort, auth.key, home),
  };
}

/** Runs `git <remote.args> <args…>` in `cwd` with the remote's env. */
export function git(r: Remote, args: string[], cwd?: string): Promise<RunResult> {
  return run("git", [...r.args, ...args], { cwd, env: r.env });
}

/** A bare clone of `r` into `dir`: git's result and, when it succeeded, `main`'s commit. */
export async function cloneMain(
  r: Remote,
  dir: string,
): Promise<RunResult & { head?: string }> {
  const res = await git(r, ["clone", "-q", "--bare", r.url, dir]);
  if (res.code !== 0) return res;
  const head = await run("git", ["--git-dir", dir, "rev-parse", "main"], { env: r.env });
  return { ...res, head: head.code === 0 ? head.stdout.trim() : undefined };
}

/** A git refusal of a push that lost a race: non-fast-forward, or the ref moved under it. */
export const LOST_RACE =
  /\[rejected\][^\n]*\((non-fast-forward|fetch first)\)|\[remote rejected\][^\n]*\((failed to update ref|cannot lock ref[^)]*)\)/;

/** `git fsck` of the repository `owner/name` in the cluster's shared data dir: its output. */
export async function fsck(cluster: BalancedCluster, repo: string): Promise<RunResult> {
  return await run("git", [
    "--git-dir",
    `${cluster.dataDir}/repos/${repo}.git`,
    "fsck",
    "--no-progress",
    "--no-dangling",
  ]);
}

/** The commits of `main` in `owner/name` as the shared data dir holds it. */
export async function historyOf(cluster: BalancedCluster, repo: string): Promise<Set<string>> {
  const r = await run("git", [
    "--git-dir",
    `${cluster.dataDir}/repos/${repo}.git`,
    "rev-list",
    "main",
  ]);
  return new Set(r.stdout.split("\n").filter(Boolean));
}

/**
 * Every instance's log lines that report a server error: a request answered 5xx, or an error
 * logged (e.g. an exception in a handler). A clean refusal is a 4xx.
 */
export function serverErrors(cluster: BalancedCluster): string[] {
  return cluster.instances.flatMap((i) =>
    i.logs().split("\n").filter((l) => /"status":5\d\d/.test(l) || l.includes('"level":"error"'))
      .map((l) => `${i.name}: ${l}`)
  );
}
