/**
 * `deno task cluster [--instances N] [--http PORT] [--registry PORT] [--ssh PORT]`: a Signet
 * cluster on this machine (testing/cluster.ts): a throwaway PostgreSQL, N instances (default 2)
 * sharing one temporary data directory and one database, and nginx balancing hosting HTTP, the
 * registry and SSH round-robin over them. Prints the three public addresses and how to use them;
 * Ctrl-C stops everything it started and deletes the data. Needs PostgreSQL's server binaries and
 * nginx with its stream module (apt-get install -y postgresql nginx libnginx-mod-stream).
 */
import { parseArgs } from "node:util";
import { type BalancedCluster, startBalancedCluster } from "../testing/cluster.ts";
import { freePort } from "../testing/ports.ts";

/** `wanted` when it is free on 127.0.0.1, else a free port. */
function portOr(wanted: number): number {
  try {
    Deno.listen({ hostname: "127.0.0.1", port: wanted }).close();
    return wanted;
  } catch {
    return freePort();
  }
}

/** A port from the command line (`--http 8080`), or `fallback` when it is free. */
function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return portOr(fallback);
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    throw new Error(`--${flag} must be a port number, not "${value}"`);
  }
  return n;
}

/** What the cluster prints once it runs: addresses, instances, and commands to try. */
export function usage(c: BalancedCluster): string {
  const h = c.httpUrl;
  const ssh = `ssh -p ${c.sshPort} -i "$PWD/me_key" -o IdentitiesOnly=yes git@127.0.0.1`;
  return [
    `Signet cluster: ${c.instances.length} instances behind nginx, one PostgreSQL, one data dir.`,
    "",
    `  hosting HTTP  ${h}`,
    `  registry      ${c.registryUrl}`,
    `  SSH           ssh://git@127.0.0.1:${c.sshPort}`,
    "",
    ...c.instances.map((i) =>
      `  instance ${i.name}    http ${i.httpUrl}, registry ${i.registryUrl}, ssh port ` +
      `${i.ports.ssh}, pid ${i.pid}`
    ),
    `  data dir      ${c.dataDir} (admin key: ${c.dataDir}/admin_key)`,
    `  logs          ${c.workDir}/<instance>.<run>.log, nginx: ${c.workDir}/nginx/`,
    "",
    "Sign up, create a repository, push and clone through the balancer (from another shell):",
    "",
    `  H=${h}`,
    `  ADMIN_KEY=$(cat ${c.dataDir}/admin_key)`,
    `  INVITE=$(curl -s -X POST -H "Authorization: Bearer $ADMIN_KEY" $H/api/admin/invites \\`,
    `    | sed 's/.*"code":"\\([^"]*\\)".*/\\1/')`,
    "  ssh-keygen -q -t ed25519 -N '' -f ./me_key",
    `  mkdir -p ~/.ssh && ssh-keyscan -p ${c.sshPort} 127.0.0.1 >> ~/.ssh/known_hosts   # trust its host key`,
    `  printf '%s\\n' me "$INVITE" | ${ssh.replace("ssh ", "ssh -T ")}   # sign up as "me"`,
    `  ${ssh} repo new demo`,
    `  GIT_SSH_COMMAND="ssh -i '$PWD/me_key' -o IdentitiesOnly=yes" \\`,
    `    git clone ssh://git@127.0.0.1:${c.sshPort}/me/demo.git`,
    `  git clone ${h}/me/demo.git demo-http   # anonymous, once demo has a commit`,
    `  curl -si ${h}/api/health               # "instance" says who answered`,
    "",
    "README.md's walkthrough works too, with $H and these ports in place of 8080, 8081 and 2222.",
    "Ctrl-C stops everything this started and deletes the data.",
  ].join("\n");
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      instances: { type: "string", default: "2" },
      http: { type: "string" },
      registry: { type: "string" },
      ssh: { type: "string" },
    },
  });
  const instances = Number(values.instances);
  if (!Number.isInteger(instances) || instances < 1 || instances > 26) {
    console.error(`--instances must be 1 to 26, not "${values.instances}"`);
    return 2;
  }
  // Listening from the start: Ctrl-C while starting must still stop what started (pg_ctl runs
  // PostgreSQL in a session of its own, so the terminal's SIGINT never reaches it), and so must a
  // closed terminal (SIGHUP), or nginx and PostgreSQL outlive this process. `deno task` passes the
  // terminal's SIGINT on, so one Ctrl-C arrives twice: only the first counts.
  let signalled = false;
  let wake = () => {};
  const onSignal = () => {
    if (signalled) return;
    signalled = true;
    say("\nstopping nginx, the instances and PostgreSQL …");
    wake();
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    Deno.addSignalListener(signal, onSignal);
  }
  let cluster: BalancedCluster;
  try {
    const ports = {
      http: port(values.http, 8080, "http"),
      registry: port(values.registry, 8081, "registry"),
      ssh: port(values.ssh, 2222, "ssh"),
    };
    say("starting PostgreSQL, the instances and nginx …");
    cluster = await startBalancedCluster({
      instances,
      ports,
      // The instances generate the admin key and the SSH host key, one for all of them.
      adminKey: null,
      logFiles: true,
      // The default (10 s, as in the README's recipe) rather than the tests' 1 s.
      failTimeoutSeconds: 10,
    });
  } catch (err) {
    // Stopped while starting: startBalancedCluster has undone what it started.
    if (signalled) {
      say("stopped");
      return 130;
    }
    say(`cannot start the cluster: ${err instanceof Error ? err.message : err}`);
    return 1;
  }
  if (!signalled) {
    try {
      console.log(usage(cluster));
    } catch { /* the terminal is gone: stop all the same */ }
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (signalled) resolve();
    });
  }
  await cluster.stop();
  say("stopped");
  return 0;
}

/** A line on stderr; none when the terminal is gone (SIGHUP), which must not stop the stop. */
function say(line: string): void {
  try {
    console.error(line);
  } catch { /* no terminal */ }
}

if (import.meta.main) Deno.exit(await main());
