/** Small ReadableStream helpers for the smart HTTP routes. */

/** `first` followed by everything in `rest`. */
export function prepend(
  first: Uint8Array,
  rest: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  return replay([first], rest.getReader());
}

/**
 * Reads `stream` up to `limit` bytes: `all` is the whole of it when it ended within that (else
 * null), and `replay` gives every byte again, those read and the rest.
 */
export async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<{ all: Uint8Array | null; replay: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size <= limit) {
    const { value, done } = await reader.read();
    if (done) {
      const all = concat(chunks, size);
      return { all, replay: replay([all], null) };
    }
    chunks.push(value);
    size += value.length;
  }
  return { all: null, replay: replay(chunks, reader) };
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

/** `chunks` (`size` bytes in all) as one array; a single chunk is returned as it is. */
export function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
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
