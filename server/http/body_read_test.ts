/**
 * chunksOf: a byte stream is read into a buffer that starts small and doubles while reads fill it,
 * up to WRITE_BYTES; every byte comes out once, in order, whatever the buffer's size.
 */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { chunksOf, FIRST_READ_BYTES, WRITE_BYTES } from "./body_read.ts";
import { concatBytes } from "../../protocol/bytes.ts";

/** A byte stream of `total` bytes that fills every buffer it is given; records their sizes. */
function greedyByteStream(
  total: number,
): { stream: ReadableStream<Uint8Array>; bytes: Uint8Array; sizes: number[] } {
  const bytes = new Uint8Array(total);
  for (let i = 0; i < total; i++) bytes[i] = (i * 7 + (i >> 11)) & 0xff;
  const sizes: number[] = [];
  let off = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest!;
      if (off >= total) {
        controller.close();
        request.respond(0);
        return;
      }
      const view = request.view!;
      sizes.push(view.byteLength);
      const filled = Math.min(view.byteLength, total - off);
      new Uint8Array(view.buffer, view.byteOffset, filled).set(bytes.subarray(off, off + filled));
      off += filled;
      request.respond(filled);
    },
  });
  return { stream: stream as ReadableStream<Uint8Array>, bytes, sizes };
}

Deno.test("a byte stream's reads start at FIRST_READ_BYTES and double while filled, up to WRITE_BYTES", async () => {
  const total = 5 * WRITE_BYTES + 123;
  const { stream, bytes, sizes } = greedyByteStream(total);
  const chunks: Uint8Array[] = [];
  for await (const chunk of chunksOf(stream)) chunks.push(chunk);
  assertEquals(concatBytes(chunks, total), bytes);
  assertEquals(sizes[0], FIRST_READ_BYTES);
  for (let i = 1; i < sizes.length; i++) {
    assertEquals(sizes[i], Math.min(sizes[i - 1] * 2, WRITE_BYTES), `read ${i}: ${sizes}`);
  }
  assertEquals(sizes.at(-1), WRITE_BYTES);
});

Deno.test("a small byte stream is read with one small buffer", async () => {
  const { stream, bytes, sizes } = greedyByteStream(973);
  const chunks: Uint8Array[] = [];
  for await (const chunk of chunksOf(stream)) chunks.push(chunk);
  assertEquals(concatBytes(chunks, 973), bytes);
  assertEquals(sizes, [FIRST_READ_BYTES]);
});
