/**
 * Producing SSHSIG signatures exactly as `ssh-keygen -Y sign` does, from a raw Ed25519 signing
 * function. Format: https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.sshsig
 */
import { encodeBase64 } from "../protocol/secrets.ts";
import { sshSigSignedData } from "../protocol/ssh/sshsig.ts";
import { wire } from "../protocol/ssh/sshwire.ts";

/** The namespace every Signet login signature uses. */
export const SIGNET_NAMESPACE = "service";

/** Signs the SSHSIG "signed data" blob; returns the SSH signature blob (`string type, string sig`). */
export type RawSshSign = (data: Uint8Array) => Promise<Uint8Array>;

/** Wraps the SSHSIG envelope bytes in the PEM armor ssh-keygen writes (base64 lines of 70). */
export function armorSshSig(envelope: Uint8Array): string {
  const b64 = encodeBase64(envelope);
  const lines = b64.match(/.{1,70}/g) ?? [];
  return ["-----BEGIN SSH SIGNATURE-----", ...lines, "-----END SSH SIGNATURE-----", ""].join("\n");
}

/**
 * Builds the armored SSHSIG over `message` under `namespace` with `hash`, signed by the key whose
 * wire blob is `publicKeyBlob` through `sign`.
 */
export async function signSshSig(
  message: Uint8Array,
  publicKeyBlob: Uint8Array,
  sign: RawSshSign,
  namespace = SIGNET_NAMESPACE,
  hash: "sha256" | "sha512" = "sha512",
): Promise<string> {
  const signatureBlob = await sign(await sshSigSignedData(message, namespace, hash));
  const envelope = wire(
    { raw: new TextEncoder().encode("SSHSIG") },
    1,
    publicKeyBlob,
    namespace,
    "",
    hash,
    signatureBlob,
  );
  return armorSshSig(envelope);
}

/** A RawSshSign over a WebCrypto Ed25519 private key. */
export function webCryptoSigner(key: CryptoKey): RawSshSign {
  return async (data) => {
    const sig = new Uint8Array(await crypto.subtle.sign("Ed25519", key, data as BufferSource));
    return wire("ssh-ed25519", sig);
  };
}
