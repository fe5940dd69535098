/** Small ReadableStream helpers for the smart HTTP routes. */

/** `first` followed by everything in `rest`. */
export function prepend(
  first: Uint8Array,
  rest: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  return replay([first], rest.getReader());
}

/** `chunks`, then what `reader` still has (if any). */
function replay(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array> | null,
): ReadableStream<Uint8Array> {
  const queued = [...chunks];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = queued.shift();
      if (next) return controller.enqueue(next);
      const { value, done } = reader ? await reader.read() : { value: undefined, done: true };
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader?.cancel(reason),
  });
}

/** Reads a stream to its end, keeping at most `limit` bytes of it as text. */
export async function collectText(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    if (text.length < limit) text += decoder.decode(chunk.subarray(0, limit - text.length));
  }
  return text;
}

/**
 * `stream` passed through to a reader that must keep up: in every span of `windowMs` in which the
 * stream had bytes ready for at least half the time (the reader, not the source, was the slow
 * side), the reader must take `bytesPerSecond` × the span or the stream is cancelled and `onSlow`
 * called. Keeps a client that reads a git response slowly from holding git (and its slot).
 */
export function minimumReadRate(
  stream: ReadableStream<Uint8Array>,
  rate: { bytesPerSecond: number; windowMs: number },
  onSlow: () => void,
): ReadableStream<Uint8Array> {
  if (rate.bytesPerSecond <= 0 || rate.windowMs <= 0) return stream;
  const reader = stream.getReader();
  const need = Math.ceil(rate.bytesPerSecond * rate.windowMs / 1000);
  let taken = 0;
  let mark = 0;
  /** Time spent this span waiting for the source, and when the current wait began. */
  let sourceMs = 0;
  let waitingSince: number | null = null;
  let spanStart = performance.now();
  let out: ReadableStreamDefaultController<Uint8Array> | null = null;
  const timer = setInterval(() => {
    const now = performance.now();
    if (waitingSince !== null) {
      sourceMs += now - waitingSince;
      waitingSince = now;
    }
    const readerWasSlow = sourceMs < (now - spanStart) / 2;
    if (readerWasSlow && taken - mark < need) {
      clearInterval(timer);
      reader.cancel().catch(() => {});
      out?.error(new Error("response read too slowly"));
      onSlow();
      return;
    }
    mark = taken;
    sourceMs = 0;
    spanStart = now;
  }, rate.windowMs);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
    },
    async pull(controller) {
      waitingSince = performance.now();
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (err) {
        clearInterval(timer);
        throw err;
      } finally {
        if (waitingSince !== null) sourceMs += performance.now() - waitingSince;
        waitingSince = null;
      }
      if (step.done) {
        clearInterval(timer);
        return controller.close();
      }
      taken += step.value.length;
      controller.enqueue(step.value);
    },
    cancel(reason) {
      clearInterval(timer);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
