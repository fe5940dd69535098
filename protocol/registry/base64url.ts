/** Strict base64url (RFC 4648 §5, no padding), as JWS requires. */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** Encodes bytes as unpadded base64url. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] +
      ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    out += ALPHABET[bytes[i] >> 2] + ALPHABET[(bytes[i] & 3) << 4];
  } else if (rest === 2) {
    const n = (bytes[i] << 8) | bytes[i + 1];
    out += ALPHABET[n >> 10] + ALPHABET[(n >> 4) & 63] + ALPHABET[(n & 15) << 2];
  }
  return out;
}

/**
 * Decodes unpadded base64url strictly: only `A-Z a-z 0-9 - _`, no padding, no whitespace, and
 * the unused low bits of the last character must be zero (so every byte string has exactly one
 * encoding). Returns null when `text` is not such an encoding.
 */
export function decodeBase64Url(text: string): Uint8Array | null {
  const tail = text.length % 4;
  if (tail === 1) return null;
  const out = new Uint8Array((text.length >> 2) * 3 + (tail === 0 ? 0 : tail - 1));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? VALUE[c] : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  // Leftover bits of the last character must be zero.
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) return null;
  return out;
}
