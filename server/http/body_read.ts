/**
 * Reading a request body's chunks as fast as they arrive, with a least rate: what the body pump
 * (body_pump.ts) and the whole-body reader (whole_body.ts) share.
 */

/** The most bytes one write to git or to the spill file joins, one spill read takes, and one read of a body fills. */
export const WRITE_BYTES = 1024 * 1024;

/** A request body that cannot be used, with the HTTP status that says why. */
export class BodyError extends Error {
  constructor(readonly status: 400 | 408 | 413, message: string) {
    super(message);
  }
}

/** The least a body must bring: `bytesPerSecond` × `windowMs` in every span of `windowMs`. */
export interface BodyRate {
  bytesPerSecond: number;
  windowMs: number;
}

/**
 * The first BYOB read's buffer. Deno reads the socket straight into the buffer it is given and
 * costs time in proportion to its size: a fresh 1 MiB buffer added ~0.7 ms to a 1 KB git request
 * whose body came apart from its headers. The buffer doubles while reads fill it, up to WRITE_BYTES.
 */
export const FIRST_READ_BYTES = 64 * 1024;

/**
 * The chunks of `body`. A byte stream (a request body straight from Deno.serve whose bytes have not
 * all arrived with its headers) is read through a BYOB reader into one reused buffer, each chunk
 * copied out at its own size; any other stream chunk by chunk as it comes. Below `rate` the body is
 * cancelled and this throws a 408 BodyError; `abort` cancels it and ends the chunks.
 */
export async function* chunksOf(
  body: ReadableStream<Uint8Array>,
  rate?: BodyRate | null,
  abort?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  let reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;
  let buffer: Uint8Array | null = null;
  try {
    reader = body.getReader({ mode: "byob" });
    buffer = new Uint8Array(FIRST_READ_BYTES);
  } catch {
    reader = body.getReader();
  }
  let received = 0;
  let slow: BodyError | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  if (rate && rate.bytesPerSecond > 0 && rate.windowMs > 0) {
    const need = Math.ceil(rate.bytesPerSecond * rate.windowMs / 1000);
    let mark = 0;
    timer = setInterval(() => {
      if (received - mark < need) {
        slow = new BodyError(
          408,
          `request body too slow: fewer than ${need} bytes in ${rate.windowMs / 1000} s`,
        );
        reader.cancel(slow).catch(() => {});
      }
      mark = received;
    }, rate.windowMs);
  }
  const onAbort = () => reader.cancel().catch(() => {});
  abort?.addEventListener("abort", onAbort);
  let ended = false;
  try {
    while (!abort?.aborted) {
      const { value, done } = buffer
        ? await (reader as ReadableStreamBYOBReader).read(buffer)
        : await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
      if (slow) throw slow;
      if (done || abort?.aborted) return void (ended = done);
      received += value.length;
      if (buffer) {
        yield value.slice();
        const size = value.buffer.byteLength;
        buffer = value.length === size && size < WRITE_BYTES
          ? new Uint8Array(size * 2)
          : new Uint8Array(value.buffer);
      } else yield value;
    }
  } finally {
    clearInterval(timer);
    abort?.removeEventListener("abort", onAbort);
    // Left early (git failed, too slow, too large): cancel the body, as leaving a for-await does.
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
