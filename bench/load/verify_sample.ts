/**
 * The unit of work the verified-mutation reference measures: one WebCrypto Ed25519
 * importKey("raw") + verify of a signature over a message the size of a canonicalized mutation
 * payload. raw_verify.ts counts how many one process does; create_ceiling.ts does one per request.
 */

/** A fresh key's raw public key, a message and its signature. */
export interface VerifySample {
  raw: Uint8Array<ArrayBuffer>;
  message: Uint8Array<ArrayBuffer>;
  signature: Uint8Array<ArrayBuffer>;
}

/** Makes a sample with a new key pair. */
export async function makeVerifySample(): Promise<VerifySample> {
  const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  const message = new TextEncoder().encode(JSON.stringify({ payload: "x".repeat(600) }));
  const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", keys.privateKey, message));
  return { raw, message, signature };
}

/** Imports the sample's key and verifies its signature; true when it verifies. */
export async function verifyOnce(sample: VerifySample): Promise<boolean> {
  const key = await crypto.subtle.importKey("raw", sample.raw, { name: "Ed25519" }, false, [
    "verify",
  ]);
  return await crypto.subtle.verify("Ed25519", key, sample.signature, sample.message);
}
