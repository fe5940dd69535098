/**
 * The stack's limit: the thinnest git server on Signet's own stack (bench/baselines/thin_server.ts:
 * ssh2 and `Deno.serve` running git, nothing else), one process serving two transports, `thin-ssh`
 * and `thin-http`. It runs the fixed-cost workloads only: the operations whose client-floor goal
 * Signet misses, where the question is how much of the gap any server on this stack has.
 */
import { cmdOk } from "../util.ts";
import { type RepoName, sshCommand, type Transport } from "../transport.ts";
import { signal, waitGone } from "./process.ts";

/** Options for the thin server: its own directory and the repositories of each transport. */
export interface ThinOptions {
  /** A directory of its own (host key). */
  dir: string;
  /** Holds `thin-ssh/` and `thin-http/`, each with small.git, big.git, scratch.git. */
  reposRoot: string;
  clientKey: { privatePath: string; publicLine: string };
}

/** Starts the thin server; returns its SSH and HTTP transports (both stop the one process). */
export async function startThin(opts: ThinOptions): Promise<Transport[]> {
  const hostKey = `${opts.dir}/ssh_host_ed25519_key`;
  await cmdOk("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      new URL("./thin_server.ts", import.meta.url).pathname,
      opts.reposRoot,
      hostKey,
      opts.clientKey.publicLine,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the thin server exited before listening");
    line += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const m = /ssh=(\d+) http=(\d+)/.exec(line);
  if (!m) throw new Error(`the thin server said: ${line}`);
  const [sshPort, httpPort] = [Number(m[1]), Number(m[2])];
  let stopped: Promise<void> | null = null;
  const server = {
    name: "thin",
    roots: () => [child.pid],
    stop: () =>
      stopped ??= (async () => {
        signal(child.pid, "SIGTERM");
        await child.status;
        await waitGone(child.pid);
      })(),
  };
  return [
    {
      id: "thin-ssh",
      label:
        "the stack's limit over SSH: ssh2 + git, nothing else (bench/baselines/thin_server.ts)",
      kind: "ssh",
      url: (repo: RepoName) => `ssh://git@127.0.0.1:${sshPort}/thin-ssh/${repo}.git`,
      env: { GIT_SSH_COMMAND: sshCommand(opts.clientKey.privatePath) },
      gitArgs: [],
      server,
      fixedCostOnly: true,
    },
    {
      id: "thin-http",
      label: "the stack's limit over HTTP: Deno.serve + git, nothing else (same process)",
      kind: "http",
      url: (repo: RepoName) => `http://127.0.0.1:${httpPort}/thin-http/${repo}.git`,
      env: {},
      gitArgs: [],
      server,
      fixedCostOnly: true,
    },
  ];
}
