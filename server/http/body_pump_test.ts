/**
 * pumpBody: request bodies reach git complete and in order, spilling to a file when git lags; too
 * slow or too large bodies fail with their HTTP status and leave no file behind. readWholeBody:
 * upload-pack requests are read whole within their bounds, gzip ones inflated within theirs; a
 * stopped or failing read is a 400.
 */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { BodyError, BodyPump, pumpBody, readWholeBody } from "./body_pump.ts";
import { concatBytes } from "../../protocol/bytes.ts";
import { resolvesWithin } from "../../tests/helpers/wait.ts";

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
  const bytes = () => concatBytes(parts, received);
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

/** A byte stream that sends `first`, then one byte every `gapMs` until cancelled. */
function dripping(first: Uint8Array, gapMs: number) {
  let cancelled = false;
  let sentFirst = false;
  const stream = new ReadableStream<Uint8Array>({
    type: "bytes",
    cancel: () => void (cancelled = true),
    async pull(controller) {
      if (!sentFirst) {
        sentFirst = true;
        return controller.enqueue(first);
      }
      await new Promise((r) => setTimeout(r, gapMs));
      if (!cancelled) controller.enqueue(new Uint8Array([0x61]));
    },
  }) as ReadableStream<Uint8Array>;
  return { stream, cancelled: () => cancelled };
}

/** A gzip stream of `bytes`. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BodyInit & Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function streamOf(bytes: Uint8Array, chunk = 16 * 1024): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (off >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(off, off += chunk));
    },
  });
}

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    if (err instanceof BodyError) return err.status;
    throw err;
  }
  return 200;
}

Deno.test("a body below the minimum rate fails with 408, is cancelled and leaves no file", async () => {
  const spillDir = await Deno.makeTempDir();
  // 200 KB at once (spilled past a 50 KB memory limit), then a byte every 50 ms.
  const body = dripping(new Uint8Array(200_000), 50);
  const pump = new BodyPump(body.stream, {
    memoryLimit: 50_000,
    spillDir,
    rate: { bytesPerSecond: 1000, windowMs: 300 },
  });
  await pump.waitFor(100_000);
  const started = performance.now();
  const error = await pump.waitFor(Infinity).catch((e) => e);
  assert(error instanceof BodyError && error.status === 408, String(error));
  assert(performance.now() - started < 5_000, "the slow body was not cut off in time");
  await pump.cancel();
  assert(body.cancelled(), "the body was left uncancelled");
  assertEquals([...Deno.readDirSync(spillDir)].length, 0, "spill file left behind");
  // The same through drain: git's stdin is aborted.
  const again = dripping(new Uint8Array(10), 50);
  const sink = slowSink(0);
  const status = await statusOf(
    pumpBody(again.stream, sink.stream, {
      memoryLimit: 50_000,
      spillDir,
      rate: { bytesPerSecond: 1000, windowMs: 300 },
    }),
  );
  assertEquals(status, 408);
});

Deno.test("a body over its maximum fails with 413; a cancelled pump removes its spill file", async () => {
  const spillDir = await Deno.makeTempDir();
  const src = source(3_000_000, 3, "bytes");
  const pump = new BodyPump(src.stream, { memoryLimit: 100_000, spillDir, maxBytes: 1_000_000 });
  assertEquals(await statusOf(pump.waitFor(Infinity)), 413);
  await pump.cancel();
  assert(src.cancelled(), "the body was left uncancelled");
  assertEquals([...Deno.readDirSync(spillDir)].length, 0, "spill file left behind");
  // Cancelled while the body still arrives, after some of it was spilled.
  const slow = source(20_000_000, 4, "bytes", 1);
  const cancelled = new BodyPump(slow.stream, { memoryLimit: 10_000, spillDir });
  await cancelled.waitFor(500_000);
  assert([...Deno.readDirSync(spillDir)].length > 0, "nothing was spilled");
  await cancelled.cancel();
  assert(slow.cancelled(), "the body was left uncancelled");
  assertEquals([...Deno.readDirSync(spillDir)].length, 0, "spill file left behind");
});

Deno.test("readWholeBody: plain and gzip bodies within bounds, 413 beyond, 400 for bad gzip", async () => {
  const line = new TextEncoder().encode("0032have 0123456789abcdef0123456789abcdef01234567\n");
  const lines = (n: number) => {
    const out = new Uint8Array(n * line.length);
    for (let i = 0; i < n; i++) out.set(line, i * line.length);
    return out;
  };
  // Random hex have lines, as git sends them: gzip shrinks them ~2x.
  const real = new Uint8Array(40_000 * 50);
  const hex = "0123456789abcdef";
  for (let i = 0; i < 40_000; i++) {
    const text = `0032have ${
      Array.from({ length: 40 }, () => hex[Math.floor(Math.random() * 16)]).join("")
    }\n`;
    real.set(new TextEncoder().encode(text), i * 50);
  }
  const limits = { maxBytes: 4_000_000, gzip: false };
  assertEquals(await readWholeBody(streamOf(real), limits), real);
  assertEquals(await readWholeBody(streamOf(await gzip(real)), { ...limits, gzip: true }), real);
  assertEquals(await statusOf(readWholeBody(streamOf(lines(100_000)), limits)), 413);
  // Over the size as inflated, though the gzip is small.
  const big = await gzip(lines(100_000));
  assert(big.length < 100_000, `${big.length} bytes of gzip`);
  const cancelledBig = streamOf(big);
  assertEquals(await statusOf(readWholeBody(cancelledBig, { ...limits, gzip: true })), 413);
  // A bomb: 2 MB from ~6 KB is over the ratio, though within the size.
  const bomb = await gzip(lines(40_000));
  const error = await readWholeBody(streamOf(bomb, 1024), { ...limits, gzip: true }).catch((e) =>
    e
  );
  assert(error instanceof BodyError && error.status === 413, String(error));
  assert(error.message.includes("inflates more than"), error.message);
  // Not gzip, and gzip cut short.
  assertEquals(await statusOf(readWholeBody(streamOf(real), { ...limits, gzip: true })), 400);
  const cut = (await gzip(real)).subarray(0, 10_000);
  assertEquals(await statusOf(readWholeBody(streamOf(cut), { ...limits, gzip: true })), 400);
  // Too slow, gzip or not.
  for (const gz of [false, true]) {
    const body = dripping(gz ? (await gzip(real)).slice(0, 100) : real.slice(0, 100), 1000);
    const rate = { bytesPerSecond: 1000, windowMs: 300 };
    assertEquals(await statusOf(readWholeBody(body.stream, { ...limits, gzip: gz, rate })), 408);
    assert(body.cancelled(), "the slow body was left uncancelled");
  }
});

Deno.test("readWholeBody: a stopped read fails with 400 and cancels the body", async () => {
  const real = new TextEncoder().encode("0032have 0123456789abcdef0123456789abcdef01234567\n");
  for (const gz of [false, true]) {
    // A body that would take minutes: a byte a second after its first bytes.
    const body = dripping(gz ? (await gzip(real)).slice(0, 20) : real.slice(0, 20), 1000);
    const stop = new AbortController();
    const read = readWholeBody(body.stream, { maxBytes: 1_000_000, gzip: gz, signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    const settled = read.catch((e) => e);
    // Without the stop it would read for ever.
    assert(await resolvesWithin(settled, 30_000), "the stopped read went on");
    const error = await settled;
    assert(
      error instanceof BodyError && error.status === 400,
      `${gz ? "gzip" : "plain"}: ${error}`,
    );
    assert(body.cancelled(), `${gz ? "gzip" : "plain"}: the body was left uncancelled`);
  }
});

Deno.test("readWholeBody: a body that fails to read is a 400, not another error", async () => {
  for (const gz of [false, true]) {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([0x1f, 0x8b, 1, 2]));
        controller.error(new Error("connection reset"));
      },
    });
    assertEquals(await statusOf(readWholeBody(failing, { maxBytes: 1000, gzip: gz })), 400);
  }
});
