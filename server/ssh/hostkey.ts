/**
 * The SSH host key: ed25519 in OpenSSH format, generated once and reused on every start. On a data
 * dir shared by several instances, the first to start creates it and the others read it, so a
 * client sees one host key whichever instance the balancer picks.
 */
import { dirname } from "node:path";
import { fingerprint, parsePublicKeyLine } from "../../protocol/ssh/sshkey.ts";
import { pathExists, publishOnce } from "../../protocol/fs.ts";
import { randomHex } from "../../protocol/secrets.ts";

/** The host key as the SSH server needs it. */
export interface HostKey {
  /** The private key file's text (OpenSSH format). */
  privateKey: string;
  /** `SHA256:…` fingerprint, as `ssh-keygen -lf` and the OpenSSH client print it. */
  fingerprint: string;
  /** Whether this start generated the key. */
  generated: boolean;
}

/**
 * Loads the ed25519 host key at `path`, generating it with `ssh-keygen` (mode 0600) when it does
 * not exist (in a directory that must exist). Keeps the file at mode 0600 and refuses anything but
 * an unencrypted ed25519 key.
 * Processes starting at once end with one key: each generates into a file of its own and only the
 * first to link it at `path` is kept (the others read that one).
 */
export async function loadOrCreateHostKey(path: string): Promise<HostKey> {
  let generated = false;
  if (!await pathExists(path)) {
    // Never made here: a mistyped path would otherwise become a new key, and a new fingerprint.
    if (!await pathExists(dirname(path))) {
      throw new Error(`the directory ${dirname(path)} for the host key does not exist`);
    }
    const tmp = `${path}.${randomHex(8)}.tmp`;
    await generate(tmp);
    generated = await publishOnce(tmp, path);
    if (generated) await publishOnce(`${tmp}.pub`, `${path}.pub`);
    else await Deno.remove(`${tmp}.pub`).catch(() => {});
  }
  await Deno.chmod(path, 0o600);
  const privateKey = await Deno.readTextFile(path);
  if (!privateKey.includes("-----BEGIN OPENSSH PRIVATE KEY-----")) {
    throw new Error(`${path} is not an OpenSSH private key`);
  }
  const publicLine = await derivePublicLine(path);
  const key = parsePublicKeyLine(publicLine);
  return { privateKey, fingerprint: await fingerprint(key.blob), generated };
}

/** Runs ssh-keygen to write a new ed25519 key at `path` (and its `.pub`). */
async function generate(path: string): Promise<void> {
  const out = await new Deno.Command("ssh-keygen", {
    args: ["-q", "-t", "ed25519", "-N", "", "-C", "signet host key", "-f", path],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `ssh-keygen could not create the host key ${path}: ${
        new TextDecoder().decode(out.stderr).trim()
      }`,
    );
  }
}

async function derivePublicLine(path: string): Promise<string> {
  const out = await new Deno.Command("ssh-keygen", {
    args: ["-y", "-f", path],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const line = new TextDecoder().decode(out.stdout).trim();
  if (!out.success || !line.startsWith("ssh-ed25519 ")) {
    throw new Error(`${path} is not an unencrypted ssh-ed25519 host key`);
  }
  return line;
}
