/** Byte-array helpers shared by the wire formats, the server's body readers, the bench and the tests. */

/**
 * `parts` joined into one array (`size`, their total length, may be given when known). A single
 * part is returned as it is, not copied.
 */
export function concatBytes(
  parts: readonly Uint8Array[],
  size = parts.reduce((n, p) => n + p.length, 0),
): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
