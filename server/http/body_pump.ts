/**
 * Copies a request body into a child's stdin without ever leaving the body unread.
 *
 * Deno's HTTP server keeps reading the socket while JS is not reading the body, and hands the
 * buffered bytes to JS from the front of one growing buffer: a body that arrives faster than git
 * consumes it (a 50 MB push on loopback) cost seconds of quadratic copying on the main thread. So
 * the body is read as fast as it arrives: chunks git has not taken yet wait in memory up to
 * `memoryLimit` bytes, then in a temporary file (as nginx does with large bodies), written by a
 * separate loop so reading never waits on the disk, and reach git in order.
 *
 * Bodies arrive in the client's chunks (git sends ~16 KiB each, ~3,500 for a 50 MB push). A body
 * from Deno.serve is read into one reused buffer and only the bytes received are copied out, where
 * the stream's default reader gave every chunk a freshly allocated buffer of its own; writes to git
 * and to the spill file join the chunks waiting at that moment into one write of up to
 * `WRITE_BYTES`. Together they halved the server's CPU for a 50 MB HTTP push (docs/decisions.md,
 * "Request bodies read into one buffer, written in large pieces").
 */

import { concat } from "./streams.ts";

/** The most bytes one write to git or to the spill file joins, and one spill read takes. */
const WRITE_BYTES = 1024 * 1024;

/** Options for `pumpBody`. */
export interface PumpOptions {
  /** Bytes kept in memory before spilling to a file. */
  memoryLimit: number;
  /** Directory for the spill file (created when needed). */
  spillDir: string;
}

/** A one-shot wake-up for a loop waiting for more work. */
class Signal {
  #waiter: (() => void) | null = null;
  wait(): Promise<void> {
    return new Promise((resolve) => (this.#waiter = resolve));
  }
  fire(): void {
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
  }
}

interface Spill {
  path: string;
  out: Deno.FsFile;
  in: Deno.FsFile;
  written: number;
  read: number;
}

/** Writes all of `body` to `stdin` and closes it; rejects (after aborting stdin) on failure. */
export async function pumpBody(
  body: ReadableStream<Uint8Array>,
  stdin: WritableStream<Uint8Array>,
  opts: PumpOptions,
): Promise<void> {
  const st = {
    memory: [] as Uint8Array[],
    memoryBytes: 0,
    toSpill: [] as Uint8Array[],
    spilling: false,
    spill: null as Spill | null,
    readerDone: false,
    spillerDone: false,
    error: null as unknown,
    failed: false,
  };
  const writerWake = new Signal();
  const spillerWake = new Signal();

  const reader = (async () => {
    try {
      for await (const chunk of chunksOf(body)) {
        if (st.failed) break;
        if (!st.spilling && st.memoryBytes + chunk.length <= opts.memoryLimit) {
          st.memory.push(chunk);
          st.memoryBytes += chunk.length;
          writerWake.fire();
        } else {
          st.spilling = true;
          st.toSpill.push(chunk);
          spillerWake.fire();
        }
      }
    } catch (err) {
      st.error ??= err;
    } finally {
      st.readerDone = true;
      spillerWake.fire();
      writerWake.fire();
    }
  })();

  const spiller = (async () => {
    try {
      while (true) {
        const chunk = takeJoined(st.toSpill);
        if (!chunk) {
          if (st.readerDone || st.failed) return;
          await spillerWake.wait();
          continue;
        }
        if (!st.spill) {
          await Deno.mkdir(opts.spillDir, { recursive: true, mode: 0o700 });
          const path = await Deno.makeTempFile({ dir: opts.spillDir, prefix: "body-" });
          st.spill = {
            path,
            out: await Deno.open(path, { append: true }),
            in: await Deno.open(path, { read: true }),
            written: 0,
            read: 0,
          };
        }
        let off = 0;
        while (off < chunk.length) off += await st.spill.out.write(chunk.subarray(off));
        st.spill.written += chunk.length;
        writerWake.fire();
      }
    } catch (err) {
      st.error ??= err;
    } finally {
      st.spillerDone = true;
      writerWake.fire();
    }
  })();

  const writer = stdin.getWriter();
  try {
    while (true) {
      if (st.error) throw st.error;
      const chunk = takeJoined(st.memory);
      if (chunk) {
        st.memoryBytes -= chunk.length;
        await writer.write(chunk);
        continue;
      }
      const spill = st.spill;
      if (spill && spill.read < spill.written) {
        const buffer = new Uint8Array(Math.min(WRITE_BYTES, spill.written - spill.read));
        const n = await spill.in.read(buffer);
        if (!n) throw new Error("request body spill file ended early");
        spill.read += n;
        await writer.write(n === buffer.length ? buffer : buffer.subarray(0, n));
        continue;
      }
      if (st.readerDone && st.spillerDone) break;
      await writerWake.wait();
    }
    await writer.close();
  } catch (err) {
    st.failed = true;
    spillerWake.fire();
    await writer.abort(err).catch(() => {});
    throw err;
  } finally {
    await reader;
    await spiller;
    if (st.spill) {
      st.spill.out.close();
      st.spill.in.close();
      await Deno.remove(st.spill.path).catch(() => {});
    }
  }
}

/** Removes the first chunks of `queue`, up to WRITE_BYTES (at least one), joined into one. */
function takeJoined(queue: Uint8Array[]): Uint8Array | undefined {
  if (queue.length <= 1 || queue[0].length + queue[1].length > WRITE_BYTES) return queue.shift();
  let count = 0;
  let size = 0;
  while (count < queue.length && size + queue[count].length <= WRITE_BYTES) {
    size += queue[count++].length;
  }
  return concat(queue.splice(0, count), size);
}

/**
 * The chunks of `body`. A byte stream (a request body straight from Deno.serve) is read through a
 * BYOB reader into one reused buffer, each chunk copied out at its own size; any other stream is
 * iterated as it is.
 */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    yield* body;
    return;
  }
  let buffer = new Uint8Array(WRITE_BYTES);
  let ended = false;
  try {
    while (true) {
      const { value, done } = await reader.read(buffer);
      if (done) return void (ended = true);
      yield value.slice();
      buffer = new Uint8Array(value.buffer);
    }
  } finally {
    // Left early (git failed): cancel the body, as leaving a for-await over the stream does.
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
