/** pumpBody: request bodies reach git complete and in order, spilling to a file when git lags. */
import { assert, assertEquals } from "./helpers/assert.ts";
import { pumpBody } from "../server/http/body_pump.ts";

/**
 * A body of `total` bytes in chunks of varying size: a default stream, or a byte stream (what
 * Deno.serve gives) that fills the reader's own buffers when it brings them.
 */
function source(
  total: number,
  seed: number,
  kind: "default" | "bytes" = "default",
  /** A pause before each chunk (a client still sending). */
  delayMs = 0,
): { stream: ReadableStream<Uint8Array>; bytes: Uint8Array; cancelled: () => boolean } {
  const bytes = new Uint8Array(total);
  let cancelledFlag = false;
  const cancelled = () => cancelledFlag;
  const cancel = () => void (cancelledFlag = true);
  for (let i = 0; i < total; i++) bytes[i] = (i * 31 + seed + (i >> 9)) & 0xff;
  let off = 0;
  let n = 0;
  const nextSize = () => Math.min(total - off, 1000 + ((n++ * 7919) % 60_000));
  if (kind === "bytes") {
    const stream = new ReadableStream({
      type: "bytes",
      cancel,
      async pull(controller) {
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        if (off >= total) {
          controller.close();
          controller.byobRequest?.respond(0);
          return;
        }
        const size = nextSize();
        const request = controller.byobRequest;
        if (!request?.view) {
          controller.enqueue(bytes.slice(off, off + size));
          off += size;
          return;
        }
        const view = new Uint8Array(request.view.buffer, request.view.byteOffset);
        const filled = Math.min(size, request.view.byteLength);
        view.set(bytes.subarray(off, off + filled));
        off += filled;
        request.respond(filled);
      },
    });
    return { stream: stream as ReadableStream<Uint8Array>, bytes, cancelled };
  }
  const stream = new ReadableStream<Uint8Array>({
    cancel,
    async pull(controller) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (off >= total) return controller.close();
      const size = nextSize();
      controller.enqueue(bytes.slice(off, off + size));
      off += size;
    },
  });
  return { stream, bytes, cancelled };
}

/** A sink that takes its time with every write, like git unpacking objects. */
function slowSink(delayMs: number, failAfter = Infinity) {
  const parts: Uint8Array[] = [];
  let received = 0;
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (received >= failAfter) throw new Error("sink broke");
      await new Promise((r) => setTimeout(r, delayMs));
      parts.push(chunk.slice());
      received += chunk.length;
    },
  });
  const bytes = () => {
    const out = new Uint8Array(received);
    let off = 0;
    for (const p of parts) {
      out.set(p, off);
      off += p.length;
    }
    return out;
  };
  return { stream, bytes };
}

Deno.test("pumpBody delivers every byte in order, in memory and through the spill file", async () => {
  for (const kind of ["default", "bytes"] as const) {
    for (const memoryLimit of [64 * 1024 * 1024, 100_000]) {
      const spillDir = await Deno.makeTempDir();
      const src = source(3_000_000, memoryLimit & 0xff, kind);
      const sink = slowSink(1);
      await pumpBody(src.stream, sink.stream, { memoryLimit, spillDir });
      assertEquals(sink.bytes().length, src.bytes.length, `${kind} stream, limit ${memoryLimit}`);
      assert(sink.bytes().every((b, i) => b === src.bytes[i]), `${kind} stream: bytes differ`);
      assertEquals([...Deno.readDirSync(spillDir)].length, 0, "spill file left behind");
    }
  }
});

Deno.test("pumpBody rejects when the child stops taking input, cancels the body, and cleans up", async () => {
  for (const kind of ["default", "bytes"] as const) {
    const spillDir = await Deno.makeTempDir();
    // A body that takes ~0.5 s to arrive; the child fails within its first megabyte.
    const src = source(20_000_000, 7, kind, 1);
    const sink = slowSink(1, 300_000);
    let error: unknown = null;
    await pumpBody(src.stream, sink.stream, { memoryLimit: 50_000, spillDir }).catch((e) =>
      error = e
    );
    assert(error instanceof Error, `${kind} stream: expected a rejection`);
    assert(src.cancelled(), `${kind} stream: the body was left uncancelled`);
    assertEquals([...Deno.readDirSync(spillDir)].length, 0, "spill file left behind");
  }
});
