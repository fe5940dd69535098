/**
 * The clone cache: a protocol v2 fetch that names no `have` (a clone) gets the response an
 * identical request got at the same repository state, so a storm of CI clones runs `git
 * upload-pack` and `pack-objects` once (GitLab's Gitaly keeps a pack-objects cache for the same
 * reason). A response is a function of the request and the refs: an entry is keyed on the request
 * and on the state of the repository's refs read from its files when the clone arrives (so a push
 * through another instance sharing the repositories is seen at once), and one whose refs changed
 * while git made it is not kept; a push through this process also retires the repository's
 * entries at once (each repository has a generation that such a push bumps). git's output is
 * written to a file as fast as git makes it, and every client reading that response, the first
 * included, follows the file (so a slow client never holds git, and identical requests arriving
 * meanwhile share the run). Entries live in the instance's own directory, within a byte budget.
 */
import { sha256Hex } from "../../protocol/secrets.ts";

/** A response being made: its bytes, and whether git ended well (only then is it kept). */
export interface Produced {
  stream: ReadableStream<Uint8Array>;
  succeeded: Promise<boolean>;
}

/** Where a response came from, for the log line. */
export type CloneSource = "cache" | "made";

/** How long a cached response is kept after it was made. */
export const CLONE_CACHE_MAX_AGE_MS = 10 * 60_000;
/** Bytes read from an entry's file at a time. */
const READ_BYTES = 64 * 1024;
/** Largest request examined (clone requests are a few hundred bytes per wanted ref). */
export const MAX_CLONE_REQUEST_BYTES = 64 * 1024;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** `text`'s UTF-8 bytes followed by `bytes`. */
function concat(text: string, bytes: Uint8Array): Uint8Array {
  const head = encoder.encode(text);
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  return out;
}

/**
 * The length field of the pkt-line at `pos` in `bytes` (which holds its 4 bytes): 0 flush, 1
 * delimiter, 2 response end, else the line's size with the field; -1 when it is malformed.
 */
export function pktLength(bytes: Uint8Array, pos: number): number {
  const hex = decoder.decode(bytes.subarray(pos, pos + 4));
  const len = /^[0-9a-f]{4}$/.test(hex) ? parseInt(hex, 16) : -1;
  return len === 3 ? -1 : len;
}

/**
 * True when `request` is exactly one protocol v2 `command=fetch` request (pkt-lines ending in a
 * flush) that sends no `have` line: what `git clone` sends.
 */
export function isCloneRequest(request: Uint8Array): boolean {
  if (request.length > MAX_CLONE_REQUEST_BYTES) return false;
  let pos = 0;
  let command = true;
  while (pos + 4 <= request.length) {
    const len = pktLength(request, pos);
    if (len < 0) return false;
    if (len === 0) return !command && pos + 4 === request.length; // flush: the request's end
    if (len === 1) { // delimiter between capabilities and arguments
      pos += 4;
      continue;
    }
    if (len < 5 || pos + len > request.length) return false;
    const line = decoder.decode(request.subarray(pos + 4, pos + len));
    if (command ? line.replace(/\n$/, "") !== "command=fetch" : line.startsWith("have ")) {
      return false;
    }
    command = false;
    pos += len;
  }
  return false;
}

/**
 * One response in its file: being written by git's run, or complete. The file is deleted once the
 * entry is retired, the run is over and no reader has it open.
 */
class Recording {
  size = 0;
  /** Set once git's run ended: whether the whole response is in the file. */
  ok: boolean | null = null;
  #waiters: (() => void)[] = [];
  #readers = 0;
  #retired = false;
  /** The file, created at once so that readers can open it before git writes a byte. */
  readonly #file: Promise<Deno.FsFile>;

  constructor(readonly path: string, readonly serial: number, public madeAt = Date.now()) {
    this.#file = Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    this.#file.catch(() => {});
  }

  /** Writes `produced` to the file; resolves to whether all of it is there and git succeeded. */
  async record(produced: Produced): Promise<boolean> {
    let ok = false;
    try {
      const file = await this.#file;
      try {
        for await (const chunk of produced.stream) {
          for (let done = 0; done < chunk.length;) done += await file.write(chunk.subarray(done));
          this.size += chunk.length;
          this.#wake();
        }
      } finally {
        file.close();
      }
      ok = await produced.succeeded;
    } catch {
      await produced.stream.cancel().catch(() => {});
    }
    this.end(ok);
    return ok;
  }

  /** Marks git's run as over (`ok`: the whole response is in the file). */
  end(ok: boolean): void {
    if (this.ok !== null) return;
    this.ok = ok;
    this.madeAt = Date.now();
    this.#wake();
    this.#deleteIfUnused();
  }

  /** No new reader will come: delete the file once the run and every reader are done. */
  retire(): void {
    this.#retired = true;
    this.#deleteIfUnused();
  }

  /** A reader of the response that follows the file until git's run ended. */
  reader(): ReadableStream<Uint8Array> {
    this.#readers++;
    let file: Deno.FsFile | null = null;
    let offset = 0;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      try {
        file?.close();
      } catch { /* closed already */ }
      this.#readers--;
      this.#deleteIfUnused();
    };
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          if (!file) {
            await this.#file;
            file = await Deno.open(this.path);
          }
          while (offset >= this.size && this.ok === null) await this.#next();
          if (offset >= this.size) {
            close();
            if (this.ok) controller.close();
            else controller.error(new Error("git upload-pack failed"));
            return;
          }
          const buffer = new Uint8Array(Math.min(READ_BYTES, this.size - offset));
          const n = await file.read(buffer);
          if (n === null) throw new Error("clone cache file ended early");
          offset += n;
          controller.enqueue(n === buffer.length ? buffer : buffer.subarray(0, n));
        } catch (err) {
          close();
          controller.error(err);
        }
      },
      cancel: close,
    });
  }

  #deleteIfUnused(): void {
    if (this.#retired && this.ok !== null && this.#readers === 0) {
      Deno.remove(this.path).catch(() => {});
    }
  }

  #next(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The cache directory, its entries, and each repository's generation. */
export class CloneCache {
  #generations = new Map<number, number>();
  #entries = new Map<string, Recording>();
  #serial = 0;

  private constructor(readonly dir: string, readonly budgetBytes: number) {}

  /** Empties (or creates) the cache directory `dir` (one instance's own: it is emptied at start). */
  static async create(dir: string, budgetBytes: number): Promise<CloneCache> {
    await Deno.remove(dir, { recursive: true }).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    return new CloneCache(dir, budgetBytes);
  }

  /** Retires `repoId`'s cached responses: call whenever its refs may have changed (any push). */
  refsChanged(repoId: number): void {
    this.#generations.set(repoId, (this.#generations.get(repoId) ?? 0) + 1);
    for (const [key, entry] of this.#entries) {
      if (key.startsWith(`${repoId}.`)) this.#drop(key, entry);
    }
  }

  /** Responses in the cache right now (complete or being made). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The response to the clone request `request` of repository `repoId` whose refs are now in the
   * state `refs()` reads: the cached one (or the one an identical request is making at that
   * state), else a new one from `produce`, recorded as git makes it and kept only when `refs()`
   * reads the same state once git is done.
   */
  async respond(
    repoId: number,
    request: Uint8Array,
    produce: () => Promise<Produced>,
    refs: () => Promise<string>,
  ): Promise<{ stream: ReadableStream<Uint8Array>; source: CloneSource }> {
    const generation = this.#generations.get(repoId) ?? 0;
    const state = await refs();
    const key = `${repoId}.${generation}.${await sha256Hex(concat(`${state}\0`, request))}`;
    const cached = this.#entries.get(key);
    if (cached && cached.ok !== false) return { stream: cached.reader(), source: "cache" };
    const serial = ++this.#serial;
    const recording = new Recording(`${this.dir}/${key}.${serial}`, serial);
    this.#entries.set(key, recording);
    const stream = recording.reader();
    let produced: Produced;
    try {
      produced = await produce();
    } catch (err) {
      recording.end(false);
      this.#drop(key, recording);
      await stream.cancel().catch(() => {});
      throw err;
    }
    recording.record(produced).then(async (ok) => {
      // Refs that moved while git ran (a push elsewhere): the answer may be of either state.
      if (ok) ok = await refs().then((now) => now === state, () => false);
      if (!ok) this.#drop(key, recording);
      else this.prune();
    });
    return { stream, source: "made" };
  }

  /** Deletes complete entries older than the maximum age, then the oldest beyond the budget. */
  prune(nowMs = Date.now()): number {
    const complete = [...this.#entries].filter(([, e]) => e.ok === true)
      .sort(([, a], [, b]) => b.madeAt - a.madeAt || b.serial - a.serial);
    let total = 0;
    let removed = 0;
    for (const [key, entry] of complete) {
      total += entry.size;
      if (nowMs - entry.madeAt <= CLONE_CACHE_MAX_AGE_MS && total <= this.budgetBytes) continue;
      total -= entry.size;
      this.#drop(key, entry);
      removed++;
    }
    return removed;
  }

  /** Forgets `entry`; its file goes once its run and readers are done. */
  #drop(key: string, entry: Recording): void {
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    entry.retire();
  }
}
