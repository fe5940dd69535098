/** JSON Canonicalization Scheme (RFC 8785), via the `canonicalize` package (verified against the RFC vectors). */
import canonicalize from "canonicalize";

/** The JCS text of `value`; throws on values JSON cannot carry (undefined, functions, NaN). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("value has no JSON form");
  return text;
}

/** The UTF-8 bytes of the JCS text of `value`. */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}
