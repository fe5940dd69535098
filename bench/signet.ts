/** Starts the real Signet (`deno run -A main.ts serve`) and sets up the bench account and repos. */
import { type LaunchedServer, launchSignet } from "../testing/launch.ts";
import { createRepo, login, mintInvite, postJson, type TestKey } from "../testing/accounts.ts";
import { mirrorInto } from "./repos.ts";
import { REPO_NAMES, type RepoName, sshCommand, type Transport } from "./transport.ts";
import type { GeneratedRepos } from "./repos.ts";

/** A running Signet server: the test-server shape plus its log file. */
export interface SignetServer extends LaunchedServer {
  /** Where the server's stdout and stderr go. */
  logFile: string;
}

/** Starts `signet serve` on free loopback ports with `dataDir`; waits for /api/health. */
export async function startSignet(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<SignetServer> {
  // The server logs one line per request. They go to a file beside the data dir, as to a log file
  // in production: read through a pipe, the bench's own process spent CPU on them, competing with
  // the server for the machine's cores under load.
  let logFile = "";
  const server = await launchSignet({
    dataDir,
    adminKey: "bench-admin-key-0123456789abcdef",
    env,
    logFile: (ports) => (logFile = `${dataDir.replace(/\/+$/, "")}-${ports.http}.log`),
    startTimeoutMs: 60_000,
  });
  return { ...server, logFile };
}

/** The bench account on Signet, with its API token. */
export interface SignetAccount {
  username: string;
  token: string;
  key: TestKey;
}

/** Creates the `bench` user with `key` (the baselines' key too) and its repositories. */
export async function setupSignetRepos(
  server: SignetServer,
  generated: GeneratedRepos,
  scratchSource: string,
  home: string,
  key: TestKey,
): Promise<SignetAccount> {
  const signup = await postJson(`${server.httpUrl}/api/signup`, {
    username: "bench",
    public_key: key.publicLine,
    invite_code: await mintInvite(server),
  });
  if (signup.status !== 201) throw new Error(`signup failed: ${JSON.stringify(signup.body)}`);
  const user = { id: (signup.body.user as { id: number }).id, username: "bench", key };
  const token = await login(server, user);
  // Each Signet transport gets its own copies: pushes over one must not race the other's clients.
  for (const prefix of ["http", "ssh"]) {
    for (const name of REPO_NAMES) {
      await createRepo(server, token, `${prefix}-${name}`);
      const source = name === "scratch" ? scratchSource : generated[name];
      await mirrorInto(source, `${server.dataDir}/repos/bench/${prefix}-${name}.git`, home);
    }
  }
  return { username: user.username, token, key: user.key };
}

/** True when Signet's SSH listener accepts connections and speaks SSH. */
export async function signetSshUp(server: SignetServer): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.sshPort });
    const buf = new Uint8Array(64);
    const timer = setTimeout(() => conn.close(), 2000);
    const n = await conn.read(buf).catch(() => null);
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by timer */ }
    return n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("SSH-");
  } catch {
    return false;
  }
}

/** The storage engine a Signet server runs on, for the engine comparison. */
export type Engine = "sqlite" | "postgres";

/**
 * What every Signet transport has: its id, engine field and label (suffixed on PostgreSQL), its
 * kind and its server.
 */
function signetParts(
  server: SignetServer,
  kind: "http" | "ssh",
  engine: Engine | undefined,
  label: string,
): Pick<Transport, "id" | "engine" | "label" | "kind" | "server"> {
  const pg = engine === "postgres";
  return {
    id: `signet-${kind}${pg ? "-pg" : ""}`,
    ...(pg ? { engine: "postgres" as const } : {}),
    label: `${label}${pg ? ", on PostgreSQL" : ""}`,
    kind,
    server: { name: "signet", roots: () => [server.pid], stop: () => server.stop() },
  };
}

/** Signet's smart HTTP transport, pushing with the bench token (on SQLite unless `engine`). */
export function signetHttp(server: SignetServer, user: SignetAccount, engine?: Engine): Transport {
  return {
    ...signetParts(
      server,
      "http",
      engine,
      "Signet smart HTTP (Deno.serve + git upload-pack/receive-pack --stateless-rpc)",
    ),
    url: (repo: RepoName) => `${server.httpUrl}/${user.username}/http-${repo}.git`,
    env: {},
    // A bearer header on every request, as a CI job would send it (no 401 round trip).
    gitArgs: ["-c", `http.extraHeader=Authorization: Bearer ${user.token}`],
  };
}

/** Signet's SSH transport, with the bench key (on SQLite unless `engine`). */
export function signetSsh(server: SignetServer, user: SignetAccount, engine?: Engine): Transport {
  return {
    ...signetParts(server, "ssh", engine, "Signet SSH (ssh2 + git upload-pack/receive-pack)"),
    url: (repo: RepoName) =>
      `ssh://git@127.0.0.1:${server.sshPort}/${user.username}/ssh-${repo}.git`,
    env: { GIT_SSH_COMMAND: sshCommand(user.key.privatePath) },
    gitArgs: [],
  };
}
