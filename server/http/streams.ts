/** Small ReadableStream helpers for the smart HTTP routes. */

/** `first` followed by everything in `rest`. */
export function prepend(
  first: Uint8Array,
  rest: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let sentHead = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(first);
        return;
      }
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A stream of just `bytes`. */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * The start of `stream`: all of it when it ends within `limit` bytes (`rest` null), else the bytes
 * read so far and the unread rest.
 */
export async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<{ bytes: Uint8Array; rest: ReadableStream<Uint8Array> | null }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size <= limit) {
    const { value, done } = await reader.read();
    if (done) return { bytes: concat(chunks, size), rest: null };
    chunks.push(value);
    size += value.length;
  }
  const rest = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { bytes: concat(chunks, size), rest };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
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
