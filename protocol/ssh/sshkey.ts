/** Parsing of OpenSSH `ssh-ed25519` public key lines. */
import { decodeBase64, encodeBase64 } from "../secrets.ts";
import { wire, WireReader } from "./sshwire.ts";

/** A parsed ed25519 public key. */
export interface Ed25519PublicKey {
  /** The 32 raw key bytes. */
  raw: Uint8Array;
  /** The SSH wire blob (`string "ssh-ed25519" || string key`). */
  blob: Uint8Array;
  /** Normalized line `ssh-ed25519 <base64>` without comment, as stored. */
  line: string;
}

/** Parses an SSH wire public-key blob; throws unless it is a well-formed ssh-ed25519 key. */
export function parseEd25519Blob(blob: Uint8Array): Ed25519PublicKey {
  const r = new WireReader(blob);
  const type = new TextDecoder().decode(r.string());
  if (type !== "ssh-ed25519") throw new Error(`key type ${type} is not ssh-ed25519`);
  const raw = r.string();
  if (raw.length !== 32 || !r.done()) throw new Error("malformed ssh-ed25519 key");
  return { raw, blob, line: `ssh-ed25519 ${encodeBase64(blob)}` };
}

/**
 * Parses an OpenSSH public key line (`ssh-ed25519 AAAA… [comment]`).
 * Throws with a user-facing message when the line is not a valid ed25519 key.
 */
export function parsePublicKeyLine(line: string): Ed25519PublicKey {
  const parts = line.trim().split(/\s+/);
  if (parts[0] !== "ssh-ed25519") throw new Error("public_key must start with 'ssh-ed25519 '");
  if (parts.length < 2) throw new Error("public_key has no key data");
  let blob: Uint8Array;
  try {
    blob = decodeBase64(parts[1]);
  } catch {
    throw new Error("public_key data is not valid base64");
  }
  try {
    return parseEd25519Blob(blob);
  } catch {
    throw new Error("public_key is not a valid OpenSSH ssh-ed25519 key");
  }
}

/** Builds the wire blob of a raw 32-byte ed25519 key. */
export function ed25519Blob(raw: Uint8Array): Uint8Array {
  return wire("ssh-ed25519", raw);
}

/** The `SHA256:…` fingerprint of a key blob, as `ssh-keygen -lf` prints it. */
export async function fingerprint(blob: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", blob as BufferSource));
  return `SHA256:${encodeBase64(digest).replace(/=+$/, "")}`;
}
