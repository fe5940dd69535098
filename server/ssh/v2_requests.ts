/**
 * Splits what a git client sends in a protocol v2 session into its requests (pkt-lines up to and
 * including a flush-pkt), so that clone requests can be answered apart from the session's
 * upload-pack. Anything it cannot follow (a malformed length, a request over the size limit) ends
 * the splitting: from there on, every byte passes through untouched and in order.
 */
import { MAX_CLONE_REQUEST_BYTES, pktLength } from "../domain/clone_cache.ts";

/** A piece of the client's byte stream: a whole request, or bytes passed through as they are. */
export interface RequestPiece {
  bytes: Uint8Array;
  whole: boolean;
}

/** Follows pkt-line framing across chunks. */
export class RequestSplitter {
  #pending: Uint8Array = new Uint8Array(0);
  #passThrough = false;

  /** The pieces `chunk` completes, in order. */
  push(chunk: Uint8Array): RequestPiece[] {
    if (this.#passThrough) return [{ bytes: chunk, whole: false }];
    const buffer = this.#pending.length === 0 ? chunk : join(this.#pending, chunk);
    const pieces: RequestPiece[] = [];
    let start = 0;
    let pos = 0;
    while (pos + 4 <= buffer.length) {
      const len = pktLength(buffer, pos);
      if (len < 0) return this.#giveUp(pieces, buffer.subarray(start));
      const size = len <= 2 ? 4 : len;
      if (pos + size > buffer.length) break;
      pos += size;
      if (len === 0) {
        pieces.push({ bytes: buffer.slice(start, pos), whole: true });
        start = pos;
      }
    }
    this.#pending = buffer.slice(start);
    if (this.#pending.length > MAX_CLONE_REQUEST_BYTES) {
      const rest = this.#pending;
      this.#pending = new Uint8Array(0);
      return this.#giveUp(pieces, rest);
    }
    return pieces;
  }

  /** Bytes of an unfinished request when the client stops sending. */
  end(): RequestPiece[] {
    const rest = this.#pending;
    this.#pending = new Uint8Array(0);
    return rest.length ? [{ bytes: rest, whole: false }] : [];
  }

  #giveUp(pieces: RequestPiece[], rest: Uint8Array): RequestPiece[] {
    this.#passThrough = true;
    this.#pending = new Uint8Array(0);
    if (rest.length) pieces.push({ bytes: rest.slice(), whole: false });
    return pieces;
  }
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
