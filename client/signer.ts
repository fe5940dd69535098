/**
 * Choosing how to sign with the user's SSH key: the key file directly when unencrypted, else the
 * running ssh-agent, else `ssh-keygen -Y sign` (which asks for the passphrase itself).
 */
import { clientEnv } from "./env.ts";
import { bytesEqual } from "../protocol/ssh/sshwire.ts";
import { type Ed25519PublicKey, fingerprint, parsePublicKeyLine } from "../protocol/ssh/sshkey.ts";
import { parseSshSig, SshSigError } from "../protocol/ssh/sshsig.ts";
import { AgentClient, AgentError } from "./agent.ts";
import { importEd25519Seed, KeyFileError, parseOpenSshPrivateKey } from "./openssh_key.ts";
import { SIGNET_NAMESPACE, signSshSig, webCryptoSigner } from "./sshsig_sign.ts";

/** Something that makes SSHSIG signatures with the user's key. */
export interface SshSigner {
  /** The key that signs. */
  publicKey: Ed25519PublicKey;
  /** How it signs: "key file", "ssh-agent" or "ssh-keygen". */
  method: "key file" | "ssh-agent" | "ssh-keygen";
  /** Returns the armored SSHSIG (SHA-512) over `message` under `namespace`. */
  sign(message: Uint8Array, namespace?: string): Promise<string>;
}

/** The key cannot be used for signing; the message tells the user what to do. */
export class SignerError extends Error {}

/** Options for loadSigner. */
export interface SignerOptions {
  /** The ssh-agent socket; defaults to $SSH_AUTH_SOCK. Empty string disables the agent. */
  agentSocket?: string;
  /** Set false to never fall back to ssh-keygen (e.g. when it must not prompt). */
  allowSshKeygen?: boolean;
}

/** Reads and parses the private key file at `keyPath`, with errors that name the file. */
async function readPrivateKey(keyPath: string) {
  let text: string;
  try {
    text = await Deno.readTextFile(keyPath);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new SignerError(
        `no SSH key at ${keyPath}: run "signet init" to create one, or set SERVICE_SSH_KEY`,
      );
    }
    throw new SignerError(`cannot read SSH key ${keyPath}: ${(err as Error).message}`);
  }
  try {
    return parseOpenSshPrivateKey(text);
  } catch (err) {
    if (err instanceof KeyFileError) throw new SignerError(`${keyPath}: ${err.message}`);
    throw err;
  }
}

/**
 * The public key that belongs to the private key at `keyPath`: the `.pub` file beside it (with
 * its comment) when present, which must match the private key; else derived from the key file.
 */
export async function readPublicKey(
  keyPath: string,
): Promise<{ line: string; key: Ed25519PublicKey }> {
  const priv = await readPrivateKey(keyPath);
  let pubText: string | undefined;
  try {
    pubText = (await Deno.readTextFile(`${keyPath}.pub`)).trim();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new SignerError(`cannot read ${keyPath}.pub: ${(err as Error).message}`);
    }
  }
  if (pubText === undefined) return { line: priv.publicKey.line, key: priv.publicKey };
  let key: Ed25519PublicKey;
  try {
    key = parsePublicKeyLine(pubText);
  } catch (err) {
    throw new SignerError(`${keyPath}.pub: ${(err as Error).message}`);
  }
  if (!bytesEqual(key.blob, priv.publicKey.blob)) {
    throw new SignerError(`${keyPath}.pub does not match the private key ${keyPath}`);
  }
  return { line: pubText, key };
}

/** Picks the way to sign with the key at `keyPath` (see the module comment). */
export async function loadSigner(keyPath: string, opts: SignerOptions = {}): Promise<SshSigner> {
  const priv = await readPrivateKey(keyPath);
  const publicKey = priv.publicKey;
  if (!priv.encrypted) {
    const key = await importEd25519Seed(priv.seed!, publicKey.raw).catch((err) => {
      throw new SignerError(`${keyPath}: ${(err as Error).message}`);
    });
    priv.seed!.fill(0);
    const raw = webCryptoSigner(key);
    return {
      publicKey,
      method: "key file",
      sign: (message, namespace = SIGNET_NAMESPACE) =>
        signSshSig(message, publicKey.blob, raw, namespace),
    };
  }

  const socket = opts.agentSocket ?? clientEnv().sshAuthSock ?? "";
  let agentProblem = "SSH_AUTH_SOCK is not set";
  if (socket) {
    const agent = await agentSigner(socket, publicKey);
    if (typeof agent !== "string") return agent;
    agentProblem = agent;
  }
  if (opts.allowSshKeygen === false) {
    throw new SignerError(
      `${keyPath} is passphrase-protected and ssh-agent cannot sign with it (${agentProblem}); ` +
        `add it to your agent with: ssh-add ${keyPath}`,
    );
  }
  return {
    publicKey,
    method: "ssh-keygen",
    sign: (message, namespace = SIGNET_NAMESPACE) =>
      sshKeygenSign(keyPath, publicKey, message, namespace, agentProblem),
  };
}

/** A signer through the agent at `socket`, or a string saying why the agent cannot be used. */
async function agentSigner(
  socket: string,
  publicKey: Ed25519PublicKey,
): Promise<SshSigner | string> {
  let agent: AgentClient | undefined;
  try {
    agent = await AgentClient.connect(socket);
    const ids = await agent.identities();
    if (!ids.some((id) => bytesEqual(id.blob, publicKey.blob))) {
      return `the agent does not hold ${await fingerprint(publicKey.blob)}`;
    }
  } catch (err) {
    if (err instanceof AgentError) return err.message;
    throw err;
  } finally {
    agent?.close();
  }
  const raw = async (data: Uint8Array) => {
    const conn = await AgentClient.connect(socket);
    try {
      return await conn.sign(publicKey.blob, data);
    } finally {
      conn.close();
    }
  };
  return {
    publicKey,
    method: "ssh-agent",
    sign: async (message, namespace = SIGNET_NAMESPACE) => {
      try {
        return await signSshSig(message, publicKey.blob, raw, namespace);
      } catch (err) {
        if (err instanceof AgentError) throw new SignerError(err.message);
        throw err;
      }
    },
  };
}

/** Signs with `ssh-keygen -Y sign`, which prompts for the passphrase on the terminal itself. */
async function sshKeygenSign(
  keyPath: string,
  publicKey: Ed25519PublicKey,
  message: Uint8Array,
  namespace: string,
  agentProblem: string,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "signet-sign-" });
  try {
    const file = `${dir}/message`;
    await Deno.writeFile(file, message, { mode: 0o600 });
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("ssh-keygen", {
        args: ["-Y", "sign", "-q", "-n", namespace, "-O", "hashalg=sha512", "-f", keyPath, file],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (err) {
      throw new SignerError(
        `${keyPath} is passphrase-protected, ssh-agent cannot sign with it (${agentProblem}) ` +
          `and ssh-keygen could not be run: ${(err as Error).message}`,
      );
    }
    if (!out.success) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").pop() || "failed";
      throw new SignerError(
        `${keyPath} is passphrase-protected, ssh-agent cannot sign with it (${agentProblem}) ` +
          `and ssh-keygen -Y sign failed (${why}); add the key to your agent with: ssh-add ${keyPath}`,
      );
    }
    const armored = await Deno.readTextFile(`${file}.sig`);
    try {
      const sig = parseSshSig(armored);
      if (!bytesEqual(sig.publicKey, publicKey.blob) || sig.namespace !== namespace) {
        throw new SshSigError("unexpected key or namespace");
      }
    } catch (err) {
      throw new SignerError(`ssh-keygen produced an unusable signature: ${(err as Error).message}`);
    }
    return armored;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
