/** Talking to the test server with the real OpenSSH client (and git over it). */
import type { TestKey } from "../../testing/accounts.ts";
import { gitEnv, run, type RunResult } from "../../testing/run.ts";

/** OpenSSH options for a throwaway test connection with exactly one key. */
export function sshOptions(port: number, key: TestKey): string[] {
  return [...sshClientOptions(key), "-p", String(port)];
}

/** The options of `sshOptions` but the port (whose flag differs: `ssh -p`, `sftp -P`). */
export function sshClientOptions(key: TestKey): string[] {
  return [
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "GlobalKnownHostsFile=/dev/null",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "IdentityAgent=none",
    "-o",
    "BatchMode=yes",
    "-o",
    "LogLevel=ERROR",
    "-F",
    "/dev/null",
    "-i",
    key.privatePath,
  ];
}

/** The full `ssh` command line (as one shell string) for GIT_SSH_COMMAND or tmux. */
export function sshCommand(port: number, key: TestKey): string {
  return ["ssh", ...sshOptions(port, key)].join(" ");
}

/** Runs `ssh git@127.0.0.1 [command]`; `-T` unless `tty`. */
export function ssh(
  port: number,
  key: TestKey,
  command?: string,
  opts: { stdin?: string; extra?: string[] } = {},
): Promise<RunResult> {
  const args = [...sshOptions(port, key), "-T", ...(opts.extra ?? []), "git@127.0.0.1"];
  if (command !== undefined) args.push(command);
  return run("ssh", args, { stdin: opts.stdin });
}

/** Env for running git over SSH with `key` (and a throwaway HOME). */
export function gitSshEnv(port: number, key: TestKey, home: string): Record<string, string> {
  return { ...gitEnv(home), GIT_SSH_COMMAND: sshCommand(port, key) };
}

/** The server's host key fingerprint as the network shows it (`ssh-keyscan` + `ssh-keygen -lf`). */
export async function scanHostKeyFingerprint(port: number): Promise<string> {
  const scan = await run("ssh-keyscan", ["-t", "ed25519", "-p", String(port), "127.0.0.1"]);
  const line = scan.stdout.split("\n").find((l) => l.includes("ssh-ed25519"));
  if (!line) throw new Error(`ssh-keyscan found no ed25519 key:\n${scan.stderr}`);
  const fp = await run("ssh-keygen", ["-l", "-f", "-"], { stdin: `${line}\n` });
  const m = /SHA256:[A-Za-z0-9+/]+/.exec(fp.stdout);
  if (!m) throw new Error(`no fingerprint in: ${fp.stdout}`);
  return m[0];
}

/** Spawns `ssh` to git@127.0.0.1 with `key` on `port` and the `extra` arguments before the host. */
export function spawnSsh(
  port: number,
  key: TestKey,
  extra: string[],
  stdio: Pick<Deno.CommandOptions, "stdin" | "stdout" | "stderr">,
): Deno.ChildProcess {
  return new Deno.Command("ssh", {
    args: [...sshOptions(port, key), ...extra, "git@127.0.0.1"],
    ...stdio,
  }).spawn();
}
