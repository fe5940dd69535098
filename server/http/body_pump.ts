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
 * `WRITE_BYTES`. Together they halved the server's CPU for a 50 MB HTTP push (docs/decisions/git-hosting.md,
 * "Request bodies read into one buffer, written in large pieces").
 *
 * Reading starts before git does (`BodyPump`), so a request takes a git slot only once its body
 * began to arrive; a body that brings too few bytes per span of time (`BodyRate`) or too many in
 * all fails with a `BodyError` naming the HTTP status (body_read.ts reads the chunks and enforces
 * the rate). `readWholeBody` (whole_body.ts) reads a small body into memory instead.
 */

import { concatBytes } from "../../protocol/bytes.ts";
import { BodyError, type BodyRate, chunksOf, WRITE_BYTES } from "./body_read.ts";

export { BodyError, type BodyRate } from "./body_read.ts";
// readWholeBody moved to whole_body.ts; re-exported for the callers that import it from here.
export { readWholeBody } from "./whole_body.ts";

/** Options for `BodyPump` and `pumpBody`. */
export interface PumpOptions {
  /** Bytes kept in memory before spilling to a file. */
  memoryLimit: number;
  /** Directory for the spill file (created when needed). */
  spillDir: string;
  /** Most bytes the body may have (413 beyond). */
  maxBytes?: number;
  /** Least rate the body must arrive at (408 below). */
  rate?: BodyRate | null;
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

/**
 * A request body being read as fast as it arrives, into memory and then a spill file, from the
 * moment it is made; `drain` writes it to git once git runs, `cancel` drops it.
 */
export class BodyPump {
  #st = {
    memory: [] as Uint8Array[],
    memoryBytes: 0,
    toSpill: [] as Uint8Array[],
    toSpillBytes: 0,
    spilling: false,
    spill: null as Spill | null,
    received: 0,
    readerDone: false,
    spillerDone: false,
    error: null as unknown,
    failed: false,
  };
  #writerWake = new Signal();
  #spillerWake = new Signal();
  #arrivals = new Signal();
  #spilled = new Signal();
  #abort = new AbortController();
  #reader: Promise<void>;
  #spiller: Promise<void>;
  #finished: Promise<void> | null = null;

  constructor(body: ReadableStream<Uint8Array>, readonly opts: PumpOptions) {
    this.#reader = this.#read(body);
    this.#spiller = this.#spill();
  }

  /** Bytes of the body read so far. */
  get received(): number {
    return this.#st.received;
  }

  /** Resolves once `bytes` arrived or the whole body did; rejects when reading it failed. */
  async waitFor(bytes: number): Promise<void> {
    const st = this.#st;
    while (!st.error && !st.readerDone && st.received < bytes) await this.#arrivals.wait();
    if (st.error) throw st.error;
  }

  /** Writes all of the body to `stdin` and closes it; rejects (after aborting stdin) on failure. */
  async drain(stdin: WritableStream<Uint8Array>): Promise<void> {
    const st = this.#st;
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
        await this.#writerWake.wait();
      }
      await writer.close();
    } catch (err) {
      await writer.abort(err).catch(() => {});
      await this.#finish();
      throw err;
    }
    await this.#finish();
  }

  /** Stops reading the body and removes what was kept of it (the spill file included). */
  cancel(): Promise<void> {
    return this.#finish();
  }

  /** Stops reading (unless done), waits for both loops, deletes the spill file; once. */
  #finish(): Promise<void> {
    this.#finished ??= (async () => {
      const st = this.#st;
      if (!st.readerDone) {
        st.failed = true;
        this.#abort.abort();
      }
      this.#spillerWake.fire();
      this.#spilled.fire();
      await this.#reader;
      await this.#spiller;
      st.memory = [];
      if (st.spill) {
        st.spill.out.close();
        st.spill.in.close();
        await Deno.remove(st.spill.path).catch(() => {});
      }
    })();
    return this.#finished;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const st = this.#st;
    const { memoryLimit, maxBytes = Infinity } = this.opts;
    try {
      for await (const chunk of chunksOf(body, this.opts.rate, this.#abort.signal)) {
        if (st.failed) break;
        st.received += chunk.length;
        if (st.received > maxBytes) {
          throw new BodyError(413, `request body over the limit of ${maxBytes} bytes`);
        }
        if (!st.spilling && st.memoryBytes + chunk.length <= memoryLimit) {
          st.memory.push(chunk);
          st.memoryBytes += chunk.length;
          this.#writerWake.fire();
        } else {
          st.spilling = true;
          st.toSpill.push(chunk);
          st.toSpillBytes += chunk.length;
          this.#spillerWake.fire();
        }
        this.#arrivals.fire();
        // The disk fell behind (or the body is inflated from gzip faster than a disk writes):
        // wait for it rather than hold the body in memory.
        while (st.toSpillBytes > memoryLimit && !st.failed && !st.spillerDone) {
          await this.#spilled.wait();
        }
      }
    } catch (err) {
      st.error ??= err;
    } finally {
      st.readerDone = true;
      this.#spillerWake.fire();
      this.#writerWake.fire();
      this.#arrivals.fire();
    }
  }

  async #spill(): Promise<void> {
    const st = this.#st;
    try {
      while (true) {
        const chunk = takeJoined(st.toSpill);
        if (!chunk) {
          if (st.readerDone || st.failed) return;
          await this.#spillerWake.wait();
          continue;
        }
        if (st.failed) return;
        if (!st.spill) {
          await Deno.mkdir(this.opts.spillDir, { recursive: true, mode: 0o700 });
          const path = await Deno.makeTempFile({ dir: this.opts.spillDir, prefix: "body-" });
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
        st.toSpillBytes -= chunk.length;
        this.#writerWake.fire();
        this.#spilled.fire();
      }
    } catch (err) {
      st.error ??= err;
      this.#arrivals.fire();
    } finally {
      st.spillerDone = true;
      this.#writerWake.fire();
      this.#spilled.fire();
    }
  }
}

/** Writes all of `body` to `stdin` and closes it; rejects (after aborting stdin) on failure. */
export function pumpBody(
  body: ReadableStream<Uint8Array>,
  stdin: WritableStream<Uint8Array>,
  opts: PumpOptions,
): Promise<void> {
  return new BodyPump(body, opts).drain(stdin);
}

/** Removes the first chunks of `queue`, up to WRITE_BYTES (at least one), joined into one. */
function takeJoined(queue: Uint8Array[]): Uint8Array | undefined {
  if (queue.length <= 1 || queue[0].length + queue[1].length > WRITE_BYTES) return queue.shift();
  let count = 0;
  let size = 0;
  while (count < queue.length && size + queue[count].length <= WRITE_BYTES) {
    size += queue[count++].length;
  }
  return concatBytes(queue.splice(0, count), size);
}
