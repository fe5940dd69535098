/**
 * Running the system git to read a repository for the browser: every call has a timeout and an
 * output bound, and at most a few run at once (per server, and per client address), so a flood of
 * page loads queues instead of forking a git per request.
 */
import type { Signet } from "../../context.ts";
import { GitSlots } from "../git.ts";
import { DomainError } from "../../../protocol/errors.ts";

/** Default time a read may take before git is killed and the page says so. */
export const READ_TIMEOUT_MS = 10_000;

/** git readers running at once (per server), and per client address. */
export const READERS = Math.max(4, 2 * navigator.hardwareConcurrency);
export const READERS_PER_CLIENT = Math.max(2, Math.floor(READERS / 2));

const slots = new GitSlots(READERS, READERS_PER_CLIENT);
/**
 * Raw downloads stream for as long as the client reads: they take slots of their own, so slow
 * downloads never hold the slots pages are read with.
 */
const streamSlots = new GitSlots(READERS, READERS_PER_CLIENT);

/** Readers waiting for a slot right now (for tests and metrics). */
export function queuedReaders(): number {
  return slots.queued;
}

/** A read that took longer than its timeout: git was killed. */
export class ReadTimeout extends DomainError {
  constructor() {
    super("unavailable", "reading the repository took too long");
  }
}

/** What one git call gave. */
export interface GitOutput {
  /** Its standard output, at most `maxBytes` of it. */
  stdout: Uint8Array;
  /** True when git had more to say than `maxBytes` (it was killed then). */
  truncated: boolean;
  /** Exit code (meaningless when truncated). */
  code: number;
  /** The first 4 KiB of its standard error. */
  stderr: string;
  /** True when git was killed at the timeout (only with `partialOnTimeout`). */
  timedOut?: boolean;
}

/** Options of one git call. */
export interface GitReadOptions {
  /** Most bytes of standard output kept; beyond them git is killed. */
  maxBytes: number;
  timeoutMs?: number;
  /** Written to git's standard input, which is then closed. */
  stdin?: string;
  /** Who asked (client address): no one client takes every reader. */
  client?: string;
  /** Kills git when aborted (its output so far is returned). */
  signal?: AbortSignal;
  /** The slots to run in (default: the pages' readers). */
  slots?: GitSlots;
  /** At the timeout, return the output so far (`timedOut`) instead of throwing ReadTimeout. */
  partialOnTimeout?: boolean;
  /** Sees each piece of standard output as it comes (to stop git through `signal` once enough). */
  onOutput?: (chunk: Uint8Array) => void;
}

/**
 * The environment of every read: no system or global config, no replace objects, no optional
 * locks (a read never writes), no prompt.
 */
export function readEnv(ctx: Signet): Record<string, string> {
  return {
    PATH: ctx.config.gitPath,
    HOME: ctx.config.dataDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  };
}

/**
 * Fixed options in front of every read: the repository named outright (no discovery), files over
 * 1 MiB never diffed (treated as binary), pathspecs taken literally, no pager or colour.
 */
export function baseArgs(dir: string): string[] {
  return [
    "--git-dir",
    dir,
    "--literal-pathspecs",
    "--no-pager",
    "-c",
    "core.bigFileThreshold=1m",
    "-c",
    "color.ui=false",
    "-c",
    "core.quotePath=false",
  ];
}

/** Starts `git <baseArgs> <args>` in the bare repository `dir` with the read environment. */
function spawnGit(
  ctx: Signet,
  dir: string,
  args: string[],
  stdin: "null" | "piped",
  stderr: "null" | "piped",
): Deno.ChildProcess {
  return new Deno.Command("git", {
    args: [...baseArgs(dir), ...args],
    env: readEnv(ctx),
    clearEnv: true,
    stdin,
    stdout: "piped",
    stderr,
  }).spawn();
}

/**
 * Takes a slot of `pool` (for `client`), then starts `git <args>` (stderr discarded) in it; the slot
 * is given back at once if git does not start, else by the caller through `release`.
 */
async function spawnInSlot(
  ctx: Signet,
  pool: GitSlots,
  dir: string,
  args: string[],
  stdin: "null" | "piped",
  client?: string,
): Promise<{ child: Deno.ChildProcess; release: () => void }> {
  const release = await pool.acquire(client ? [client] : []);
  try {
    return { child: spawnGit(ctx, dir, args, stdin, "null"), release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Runs `git <baseArgs> <args>` in the bare repository `dir` within a reader slot; kills it at the
 * timeout (ReadTimeout) or once it wrote `maxBytes` (truncated).
 */
export async function gitRead(
  ctx: Signet,
  dir: string,
  args: string[],
  opts: GitReadOptions,
): Promise<GitOutput> {
  const release = await (opts.slots ?? slots).acquire(opts.client ? [opts.client] : []);
  try {
    return await runBounded(ctx, dir, args, opts);
  } finally {
    release();
  }
}

async function runBounded(
  ctx: Signet,
  dir: string,
  args: string[],
  opts: GitReadOptions,
): Promise<GitOutput> {
  const child = spawnGit(ctx, dir, args, opts.stdin === undefined ? "null" : "piped", "piped");
  let timedOut = false;
  opts.signal?.addEventListener("abort", () => kill(child), { once: true });
  if (opts.signal?.aborted) kill(child);
  const timer = setTimeout(() => {
    timedOut = true;
    kill(child);
  }, opts.timeoutMs ?? READ_TIMEOUT_MS);
  try {
    if (opts.stdin !== undefined) {
      const w = child.stdin.getWriter();
      w.write(new TextEncoder().encode(opts.stdin)).then(() => w.close()).catch(() => {});
    }
    const [out, err, status] = await Promise.all([
      readAtMost(child.stdout, opts.maxBytes, () => kill(child), opts.onOutput),
      readAtMost(child.stderr, 4096, () => {}),
      child.status,
    ]);
    if (timedOut && !opts.partialOnTimeout) throw new ReadTimeout();
    return {
      stdout: out.bytes,
      truncated: out.truncated,
      code: status.code,
      stderr: new TextDecoder().decode(err.bytes),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}

function kill(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch { /* already gone */ }
}

/**
 * Reads `stream` keeping at most `max` bytes; past them calls `over` once and drains the rest
 * (so the process can exit) without keeping it; `seen` gets each kept piece as it comes.
 */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
  over: () => void,
  seen?: (chunk: Uint8Array) => void,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    if (truncated) continue;
    if (size + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - size));
      seen?.(chunk.subarray(0, max - size));
      size = max;
      truncated = true;
      over();
      continue;
    }
    chunks.push(chunk);
    seen?.(chunk);
    size += chunk.length;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, truncated };
}

/**
 * Streams the standard output of `git <args>` (a raw download) within a download slot: the slot is
 * released and git killed when the stream ends, is cancelled, or `timeoutMs` passes. The stream
 * ends cleanly only when git succeeded: killed at the timeout or failing, it errors, so the client
 * sees a broken download rather than a complete-looking short one.
 */
export async function gitStream(
  ctx: Signet,
  dir: string,
  args: string[],
  opts: { timeoutMs: number; client?: string },
): Promise<ReadableStream<Uint8Array>> {
  const { child, release } = await spawnInSlot(ctx, streamSlots, dir, args, "null", opts.client);
  const timer = setTimeout(() => kill(child), opts.timeoutMs);
  const done = () => {
    clearTimeout(timer);
    release();
  };
  child.status.then(done, done);
  const reader = child.stdout.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: end } = await reader.read();
        if (!end) return controller.enqueue(value);
        const status = await child.status;
        if (status.success) return controller.close();
        controller.error(new Error(`git ${args[0]} ended with ${status.signal ?? status.code}`));
      } catch (err) {
        controller.error(err);
      }
    },
    cancel() {
      kill(child);
      reader.cancel().catch(() => {});
    },
  });
}

/** An object as `catObject` found it. */
export type CatObject =
  | { found: false }
  | {
    found: true;
    oid: string;
    type: string;
    size: number;
    /** Its bytes when a blob of at most the limit asked for, else null (never read). */
    bytes: Uint8Array | null;
  };

/**
 * Looks `spec` (`<commit>:<path>`, an object id) up with one `git cat-file --batch-command`: its
 * type and size first (`info`), then its bytes (`contents`) only when it is a blob of at most
 * `limit` bytes. A large blob is never read: `--batch` would read it whole into git's memory
 * before writing a byte of it.
 */
export async function catObject(
  ctx: Signet,
  dir: string,
  spec: string,
  limit: number,
  client?: string,
): Promise<CatObject> {
  if (/[\n\r\0]/.test(spec)) return { found: false };
  const { child, release } = await spawnInSlot(
    ctx,
    slots,
    dir,
    ["cat-file", "--batch-command"],
    "piped",
    client,
  );
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    kill(child);
  }, READ_TIMEOUT_MS);
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  const enc = new TextEncoder();
  let buf = new Uint8Array(0);
  // Reads until `buf` holds `n` bytes (or a newline when n is -1); false at the end of output.
  const fill = async (n: number): Promise<boolean> => {
    while (n < 0 ? buf.indexOf(10) < 0 : buf.length < n) {
      const { value, done } = await reader.read();
      if (done) return false;
      const next = new Uint8Array(buf.length + value.length);
      next.set(buf);
      next.set(value, buf.length);
      buf = next;
    }
    return true;
  };
  const line = async (): Promise<string[] | null> => {
    if (!await fill(-1)) return null;
    const nl = buf.indexOf(10);
    const text = new TextDecoder().decode(buf.subarray(0, nl));
    buf = buf.slice(nl + 1);
    return text.split(" ");
  };
  try {
    await writer.write(enc.encode(`info ${spec}\n`));
    const info = await line();
    if (!info || info.length !== 3) return { found: false };
    const [oid, type, sizeText] = info;
    const size = Number(sizeText);
    if (type !== "blob" || size > limit) return { found: true, oid, type, size, bytes: null };
    await writer.write(enc.encode(`contents ${oid}\n`));
    const head = await line();
    if (!head || head[0] !== oid || !await fill(size)) return { found: false };
    return { found: true, oid, type, size, bytes: buf.slice(0, size) };
  } catch (err) {
    if (timedOut) throw new ReadTimeout();
    throw err;
  } finally {
    clearTimeout(timer);
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    kill(child);
    await child.status;
    release();
    if (timedOut) {
      // deno-lint-ignore no-unsafe-finally
      throw new ReadTimeout();
    }
  }
}

/** What `git cat-file --batch-check` says of one object name. */
export type ObjectInfo =
  | { id: string; type: string; size: number }
  | "missing"
  /** An abbreviation several objects begin with. */
  | "ambiguous";

/**
 * What each of `names` (ids, abbreviations, `<commit>:<path>`) is, with one
 * `git cat-file --batch-check`, in the order asked. A name git cannot be asked (one holding a line
 * break or NUL) is "missing". `preferCommits` resolves an abbreviation to the one commit among the
 * objects beginning with it (git's `core.disambiguate=commit`).
 */
export async function checkObjects(
  ctx: Signet,
  dir: string,
  names: string[],
  opts: { maxBytes: number; client?: string; preferCommits?: boolean },
): Promise<ObjectInfo[]> {
  const askable = (name: string) => !/[\n\r\0]/.test(name);
  const asked = names.filter(askable);
  if (asked.length === 0) return names.map(() => "missing");
  const out = await gitRead(ctx, dir, [
    ...(opts.preferCommits ? ["-c", "core.disambiguate=commit"] : []),
    "cat-file",
    "--batch-check",
  ], { maxBytes: opts.maxBytes, stdin: asked.map((n) => `${n}\n`).join(""), client: opts.client });
  const lines = new TextDecoder().decode(out.stdout).split("\n");
  let at = 0;
  return names.map((name): ObjectInfo => {
    if (!askable(name)) return "missing";
    // `<id> <type> <size>` when found; else the name asked, then `missing` or `ambiguous`.
    const line = lines[at++] ?? "";
    const found = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/.exec(line);
    if (found) return { id: found[1], type: found[2], size: Number(found[3]) };
    return line.endsWith(" ambiguous") ? "ambiguous" : "missing";
  });
}
