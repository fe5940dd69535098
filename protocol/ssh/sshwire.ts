/** Reading and writing the SSH wire encoding (RFC 4251 uint32 and length-prefixed strings). */
import { concatBytes } from "../bytes.ts";

/** Sequential reader over SSH wire bytes; every read throws on truncation. */
export class WireReader {
  #pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  /** Reads a big-endian uint32. */
  uint32(): number {
    if (this.#pos + 4 > this.bytes.length) throw new Error("truncated uint32");
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.#pos, 4).getUint32(0);
    this.#pos += 4;
    return v;
  }

  /** Reads `n` raw bytes. */
  raw(n: number): Uint8Array {
    if (n < 0 || this.#pos + n > this.bytes.length) throw new Error("truncated data");
    const v = this.bytes.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return v;
  }

  /** Reads a uint32-length-prefixed byte string. */
  string(): Uint8Array {
    return this.raw(this.uint32());
  }

  /** Reads a length-prefixed string that must be printable ASCII. */
  text(): string {
    const bytes = this.string();
    for (const b of bytes) if (b < 0x20 || b > 0x7e) throw new Error("non-ASCII text field");
    return new TextDecoder().decode(bytes);
  }

  /** True when every byte has been read. */
  done(): boolean {
    return this.#pos === this.bytes.length;
  }
}

/** Concatenates SSH wire fields: numbers become uint32, strings and byte arrays length-prefixed. */
export function wire(...parts: (number | string | Uint8Array | { raw: Uint8Array })[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    if (typeof p === "number") {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setUint32(0, p);
      chunks.push(b);
    } else if (p instanceof Uint8Array || typeof p === "string") {
      const data = typeof p === "string" ? new TextEncoder().encode(p) : p;
      chunks.push(wire(data.length), data);
    } else {
      chunks.push(p.raw);
    }
  }
  return concatBytes(chunks);
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}
