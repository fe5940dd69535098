/** Baseline: stock OpenSSH `sshd` on a spare loopback port, `git` account with git-shell. */
import { cmd, cmdOk, freePort, waitForPort } from "../util.ts";
import { type RepoName, sshCommand, type Transport } from "../transport.ts";
import { type Account, chownTree } from "./account.ts";
import { signal, waitGone } from "./process.ts";
import { spawnWithStderr } from "../../testing/run.ts";

/** Options for starting the OpenSSH baseline. */
export interface SshdOptions {
  /** A directory of its own (config, host key, authorized_keys); must be world-traversable. */
  dir: string;
  /** Directory holding small.git, big.git, scratch.git for this transport. */
  reposDir: string;
  account: Account;
  clientKey: { privatePath: string; publicLine: string };
}

/** Starts `sshd -D` with its own config; returns the transport and a stop function. */
export async function startSshd(opts: SshdOptions): Promise<Transport> {
  const { dir, account } = opts;
  const port = freePort();
  const hostKey = `${dir}/ssh_host_ed25519_key`;
  await cmdOk("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  await Deno.writeTextFile(`${dir}/authorized_keys`, opts.clientKey.publicLine + "\n");
  await Deno.chmod(`${dir}/authorized_keys`, 0o644);
  // sshd needs its privilege separation directory.
  await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${hostKey}`,
    `PidFile ${dir}/sshd.pid`,
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    "StrictModes no",
    "UsePAM no",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "PermitRootLogin no",
    `AllowUsers ${account.name}`,
    "AcceptEnv GIT_PROTOCOL",
    // The default 10:30:100 drops about a third of 50 parallel clones.
    "MaxStartups 200:30:400",
    "X11Forwarding no",
    "PrintMotd no",
    "LogLevel ERROR",
    "",
  ].join("\n");
  const configPath = `${dir}/sshd_config`;
  await Deno.writeTextFile(configPath, config);
  await cmdOk("/usr/sbin/sshd", ["-t", "-f", configPath]);
  await chownTree(opts.reposDir, account);

  const { child, stderr, drained } = spawnWithStderr("/usr/sbin/sshd", [
    "-D",
    "-e",
    "-f",
    configPath,
  ]);
  await waitForPort(port);
  const version = (await cmd("ssh", ["-V"])).stderr.trim().split(",")[0];

  return {
    id: "openssh",
    label: `OpenSSH sshd + git-shell (${version || "sshd"})`,
    kind: "ssh",
    url: (repo: RepoName) => `ssh://git@127.0.0.1:${port}${opts.reposDir}/${repo}.git`,
    env: { GIT_SSH_COMMAND: sshCommand(opts.clientKey.privatePath) },
    gitArgs: [],
    server: {
      name: "sshd",
      roots: () => [child.pid],
      async stop() {
        signal(child.pid, "SIGTERM");
        await child.status;
        await drained;
        await waitGone(child.pid);
        // Our readiness probe connects and hangs up; anything else sshd said is worth showing.
        const said = stderr().split("\n").filter((l) =>
          l.trim() && !/kex_exchange_identification/.test(l)
        );
        if (said.length) console.error(`sshd stderr:\n${said.slice(-20).join("\n")}`);
      },
    },
  };
}
