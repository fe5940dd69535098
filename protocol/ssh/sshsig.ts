/**
 * SSHSIG (OpenSSH `ssh-keygen -Y sign`) envelopes: strict parsing and Ed25519 verification.
 * Format: https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.sshsig
 */
import { dearmor } from "./armor.ts";
import { parseEd25519Blob } from "./sshkey.ts";
import { bytesEqual, wire, WireReader } from "./sshwire.ts";

const MAGIC = "SSHSIG";

/** The fields of a parsed SSHSIG envelope. */
export interface SshSig {
  publicKey: Uint8Array;
  namespace: string;
  hashAlgorithm: "sha256" | "sha512";
  signature: Uint8Array;
}

/** Raised for any malformed or unacceptable signature; the message is safe to return to clients. */
export class SshSigError extends Error {}

/** Parses a PEM-armored SSHSIG; throws SshSigError unless it is a well-formed ed25519 SSHSIG v1. */
export function parseSshSig(armored: string): SshSig {
  const armor = dearmor(armored, "SSH SIGNATURE");
  if (!armor.ok && armor.problem === "armor") {
    throw new SshSigError("signature must be a PEM-armored SSH signature (ssh-keygen -Y sign)");
  }
  if (!armor.ok) throw new SshSigError("signature armor is not valid base64");
  const bytes = armor.bytes;
  try {
    const r = new WireReader(bytes);
    if (new TextDecoder().decode(r.raw(6)) !== MAGIC) throw new SshSigError("bad SSHSIG magic");
    const version = r.uint32();
    if (version !== 1) throw new SshSigError(`unsupported SSHSIG version ${version}`);
    const publicKey = r.string();
    const namespace = new TextDecoder("utf-8", { fatal: true }).decode(r.string());
    r.string(); // reserved
    const hashAlgorithm = new TextDecoder().decode(r.string());
    if (hashAlgorithm !== "sha256" && hashAlgorithm !== "sha512") {
      throw new SshSigError(`unsupported SSHSIG hash algorithm ${JSON.stringify(hashAlgorithm)}`);
    }
    const sigBlob = r.string();
    if (!r.done()) throw new SshSigError("trailing data after SSHSIG signature");
    const sr = new WireReader(sigBlob);
    const sigType = new TextDecoder().decode(sr.string());
    if (sigType !== "ssh-ed25519") throw new SshSigError("signature is not ssh-ed25519");
    const signature = sr.string();
    if (signature.length !== 64 || !sr.done()) throw new SshSigError("malformed ed25519 signature");
    parseEd25519Blob(publicKey);
    return { publicKey, namespace, hashAlgorithm, signature };
  } catch (err) {
    if (err instanceof SshSigError) throw err;
    throw new SshSigError("malformed SSH signature");
  }
}

/** The bytes an SSHSIG signer signs for `message` under `namespace` and `hash`. */
export async function sshSigSignedData(
  message: Uint8Array,
  namespace: string,
  hash: "sha256" | "sha512",
): Promise<Uint8Array> {
  const digest = new Uint8Array(
    await crypto.subtle.digest(hash === "sha512" ? "SHA-512" : "SHA-256", message as BufferSource),
  );
  return wire({ raw: new TextEncoder().encode(MAGIC) }, namespace, "", hash, digest);
}

/**
 * Verifies an armored SSHSIG over `message`: namespace must equal `namespace` exactly and the
 * signing key must equal `expectedKeyBlob`. Throws SshSigError on any failure.
 */
export async function verifySshSig(
  armored: string,
  message: Uint8Array,
  namespace: string,
  expectedKeyBlob: Uint8Array,
): Promise<void> {
  const sig = parseSshSig(armored);
  if (sig.namespace !== namespace) {
    throw new SshSigError(`signature namespace must be "${namespace}"`);
  }
  if (!bytesEqual(sig.publicKey, expectedKeyBlob)) {
    throw new SshSigError("signature was made with a key other than the account's key");
  }
  const raw = parseEd25519Blob(sig.publicKey).raw;
  const key = await crypto.subtle.importKey("raw", raw as BufferSource, "Ed25519", false, [
    "verify",
  ]);
  const data = await sshSigSignedData(message, namespace, sig.hashAlgorithm);
  const ok = await crypto.subtle.verify(
    "Ed25519",
    key,
    sig.signature as BufferSource,
    data as BufferSource,
  );
  if (!ok) throw new SshSigError("signature verification failed");
}
