/** Reading a whole (small) request body, such as an upload-pack request, into memory, inflating gzip within bounds. */
import { concatBytes } from "../../protocol/bytes.ts";
import { BodyError, type BodyRate, chunksOf } from "./body_read.ts";

/** Limits of `readWholeBody`. */
export interface WholeBodyLimits {
  /** Most bytes the body may have, as sent and (gzip) inflated. */
  maxBytes: number;
  /** The body is gzip: inflate it. */
  gzip: boolean;
  rate?: BodyRate | null;
  /** Stops the read: the body is cancelled and the read fails with a 400 BodyError. */
  signal?: AbortSignal;
}

/** Inflated bytes allowed whatever the ratio (a small request compresses little anyway). */
export const INFLATE_FREE_BYTES = 1024 * 1024;
/**
 * Past INFLATE_FREE_BYTES, the most inflated bytes per byte sent. git's gzip of want and have
 * lines inflates ~2x; 20,000 similar `want-ref` lines ~24x; a bomb of repeated lines ~340x.
 */
export const MAX_INFLATE_RATIO = 32;

/** Bytes of gzip given to the inflater at a time. */
const INFLATE_PIECE = 2048;

/**
 * `body` inflated from gzip. The inflater inflates all of what it is given at once, so it is given
 * small pieces: one chunk of a bomb would otherwise become up to ~1,000 times its size in memory.
 */
export function gunzip(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const pieces = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (let off = 0; off < chunk.length; off += INFLATE_PIECE) {
        controller.enqueue(chunk.subarray(off, off + INFLATE_PIECE));
      }
    },
  });
  return body.pipeThrough(pieces).pipeThrough(
    new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
}

/**
 * Reads a whole (small) request body into memory, inflating gzip, within `limits`. Every failure
 * is a BodyError: 413 over the limits, 408 too slow, 400 unreadable, not gzip, or stopped.
 */
export async function readWholeBody(
  body: ReadableStream<Uint8Array>,
  limits: WholeBodyLimits,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new BodyError(413, `request body over the limit of ${limits.maxBytes} bytes`);
  const stopped = () => new BodyError(400, "request body read stopped");
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!limits.gzip) {
    try {
      for await (const chunk of chunksOf(body, limits.rate, limits.signal)) {
        size += chunk.length;
        if (size > limits.maxBytes) throw tooLarge();
        chunks.push(chunk);
      }
    } catch (err) {
      throw err instanceof BodyError ? err : new BodyError(400, "request body could not be read");
    }
    if (limits.signal?.aborted) throw stopped();
    return concatBytes(chunks, size);
  }
  const inflate = new DecompressionStream("gzip") as unknown as TransformStream<
    Uint8Array,
    Uint8Array
  >;
  const writer = inflate.writable.getWriter();
  const abort = new AbortController();
  // Stopped from outside: the feeding below ends, and the inflater's readable fails with `stopped`.
  const stop = () => {
    abort.abort();
    writer.abort(stopped()).catch(() => {});
  };
  if (limits.signal?.aborted) stop();
  else limits.signal?.addEventListener("abort", stop, { once: true });
  let sent = 0;
  /** Why feeding the inflater failed: the body could not be read or was too large. */
  let fedError: BodyError | null = null;
  const feeding = (async () => {
    try {
      for await (const chunk of chunksOf(body, limits.rate, abort.signal)) {
        if (sent + chunk.length > limits.maxBytes) throw tooLarge();
        // In small pieces: the inflater inflates all of a piece at once (at most ~1,000 times
        // its size), so the bounds below are checked before much more than a piece's worth.
        for (let off = 0; off < chunk.length && !abort.signal.aborted; off += INFLATE_PIECE) {
          const piece = chunk.subarray(off, off + INFLATE_PIECE);
          sent += piece.length;
          // A failed write means the inflater failed: the reading side below says why.
          await writer.write(piece).catch(() => abort.abort());
        }
      }
      if (!abort.signal.aborted) await writer.close().catch(() => {});
    } catch (err) {
      fedError = err instanceof BodyError
        ? err
        : new BodyError(400, "request body could not be read");
      await writer.abort(fedError).catch(() => {});
    }
  })();
  const reader = inflate.readable.getReader();
  try {
    while (true) {
      const step = await reader.read();
      if (step.done) break;
      size += step.value.length;
      if (size > limits.maxBytes) throw tooLarge();
      if (size > INFLATE_FREE_BYTES && size > MAX_INFLATE_RATIO * sent) {
        throw new BodyError(
          413,
          `request body inflates more than ${MAX_INFLATE_RATIO} times its gzip size`,
        );
      }
      chunks.push(step.value);
    }
    await feeding;
    if (fedError) throw fedError;
    return concatBytes(chunks, size);
  } catch (err) {
    abort.abort();
    await reader.cancel().catch(() => {});
    await feeding;
    throw fedError ??
      (err instanceof BodyError ? err : new BodyError(400, "request body is not valid gzip"));
  } finally {
    limits.signal?.removeEventListener("abort", stop);
  }
}
