/** Strict base64url (RFC 4648 §5, no padding), as JWS requires. */

/** Encodes bytes as unpadded base64url. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Decodes unpadded base64url strictly: only `A-Z a-z 0-9 - _`, no padding, no whitespace, and
 * the unused low bits of the last character must be zero (so every byte string has exactly one
 * encoding). Returns null when `text` is not such an encoding.
 */
export function decodeBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const std = text.replace(/-/g, "+").replace(/_/g, "/");
  let bin: string;
  try {
    bin = atob(std.padEnd(Math.ceil(std.length / 4) * 4, "="));
  } catch {
    return null;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return encodeBase64Url(out) === text ? out : null;
}
