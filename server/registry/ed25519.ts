/** Ed25519 through WebCrypto, which is strict (rejects non-canonical and small-order inputs). */

/** Length of a raw Ed25519 public key. */
export const PUBLIC_KEY_BYTES = 32;
/** Length of an Ed25519 signature. */
export const SIGNATURE_BYTES = 64;

/** True when `signature` is a valid Ed25519 signature of `message` by the raw `publicKey`. */
export async function verifyEd25519(
  publicKey: Uint8Array,
  signature: Uint8Array,
  message: Uint8Array,
): Promise<boolean> {
  if (publicKey.length !== PUBLIC_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false;
  try {
    const key = await crypto.subtle.importKey(
      "raw",
      publicKey as BufferSource,
      { name: "Ed25519" },
      false,
      ["verify"],
    );
    return await crypto.subtle.verify(
      "Ed25519",
      key,
      signature as BufferSource,
      message as BufferSource,
    );
  } catch {
    return false;
  }
}
