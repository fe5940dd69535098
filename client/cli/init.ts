/** `signet init`: choose the host and make sure an SSH key exists. */
import { environment, helpText } from "./help.ts";
import { clientEnv } from "../env.ts";
import { fingerprint } from "../../protocol/ssh/sshkey.ts";
import { Api } from "../api.ts";
import { keyPath, loadConfig, normalizeHost, saveConfig } from "../config.ts";
import { parseArgs } from "../args.ts";
import { CliError, UsageError } from "../errors.ts";
import { ask, confirm, isInteractive } from "../prompt.ts";
import { readPublicKey } from "../signer.ts";
import type { Command } from "./command.ts";
import { pathExists } from "../../protocol/fs.ts";

/** `signet init [--host URL] [--create-key]` */
export const initCommand: Command = {
  name: "init",
  summary: "store the host and check (or create) your SSH key",
  help: helpText({
    program: "signet init",
    usage: "[--host URL] [--create-key]",
    sections: [
      `Stores the Signet host in the config file and checks that your SSH key exists.
When the key is missing, offers to create one with ssh-keygen (on a terminal);
--create-key creates it without asking, with no passphrase.`,
      {
        title: "Options",
        rows: [
          ["--host URL", "the Signet host (default: $SERVICE_HOST, else the stored host)"],
          ["--create-key", "create a missing key without asking (unencrypted)"],
        ],
      },
      environment("SERVICE_HOST", "SERVICE_SSH_KEY"),
    ],
  }),
  async run(args) {
    const { flags } = parseArgs(args, { host: "string", "create-key": "boolean" }, 0);
    const config = await loadConfig();
    let input = (flags.host as string | undefined) ?? clientEnv().host ?? config.host;
    if (!input && isInteractive()) {
      input = await ask("Signet host URL (e.g. https://git.example.com): ");
    }
    if (!input) throw new UsageError("no host given: pass --host URL or set SERVICE_HOST");
    const host = normalizeHost(input);

    const sameHost = config.host !== undefined && normalizeHost(config.host) === host;
    await saveConfig(sameHost ? { ...config, host } : { host });
    console.log(`Host: ${host}${await reachability(host, input)}`);

    const path = keyPath();
    const force = flags["create-key"] === true;
    const created = !(await pathExists(path));
    if (created) await createKey(path, force);
    const pub = await readPublicKey(path).catch((err) => {
      throw new CliError((err as Error).message);
    });
    const made = created ? (force ? ", created now without a passphrase" : ", created now") : "";
    console.log(`SSH key: ${path} (${await fingerprint(pub.key.blob)})${made}`);
    const stored = sameHost ? config.username : undefined;
    console.log(
      stored
        ? `Account: ${stored}. Next: signet login`
        : "Next: signet register <username> --invite <code>  (or signet login <username>)",
    );
    return 0;
  },
};

/**
 * What to say after the host: nothing when it answers. When it does not and `input` named no
 * scheme, whether it answers over plain http:// (a local server often does): never switched to
 * silently, since that would send tokens unencrypted.
 */
async function reachability(host: string, input: string): Promise<string> {
  if (await new Api(host).healthy()) return "";
  const plain = host.replace(/^https:/, "http:");
  const schemeGiven = /^[a-z][a-z0-9+.-]*:\/\//i.test(input.trim());
  if (!schemeGiven && plain !== host && await new Api(plain).healthy()) {
    return ` (no answer over https://, but ${plain} answers: if that is your server, run ` +
      `signet init --host ${plain})`;
  }
  return " (not reachable right now)";
}

/** Creates an ed25519 key at `path` with ssh-keygen, asking first unless `force`. */
async function createKey(path: string, force: boolean): Promise<void> {
  const interactive = isInteractive();
  if (!force) {
    const hint = `create one with "signet init --create-key" or ` +
      `"ssh-keygen -t ed25519 -f ${path}", or point SERVICE_SSH_KEY at your key`;
    if (!interactive) throw new CliError(`no SSH key at ${path}: ${hint}`);
    if (!(await confirm(`No SSH key at ${path}. Create one with ssh-keygen?`, true))) {
      throw new CliError(`no SSH key at ${path}: ${hint}`);
    }
  }
  const dir = path.slice(0, path.lastIndexOf("/"));
  if (dir) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // Asked on a terminal: ssh-keygen asks for a passphrase itself. --create-key: none, quietly.
  const args = force
    ? ["-q", "-t", "ed25519", "-N", "", "-f", path]
    : ["-t", "ed25519", "-f", path];
  let status: Deno.CommandStatus;
  try {
    status = await new Deno.Command("ssh-keygen", {
      args,
      stdin: force ? "null" : "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
  } catch (err) {
    throw new CliError(`cannot run ssh-keygen: ${(err as Error).message}`);
  }
  if (!status.success) throw new CliError(`ssh-keygen failed (exit ${status.code})`);
}
