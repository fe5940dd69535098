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
  const release = await slots.acquire(opts.client ? [opts.client] : []);
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
  const child = new Deno.Command("git", {
    args: [...baseArgs(dir), ...args],
    env: readEnv(ctx),
    clearEnv: true,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
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
      readAtMost(child.stdout, opts.maxBytes, () => kill(child)),
      readAtMost(child.stderr, 4096, () => {}),
      child.status,
    ]);
    if (timedOut) throw new ReadTimeout();
    return {
      stdout: out.bytes,
      truncated: out.truncated,
      code: status.code,
      stderr: new TextDecoder().decode(err.bytes),
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
 * (so the process can exit) without keeping it.
 */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
  over: () => void,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    if (truncated) continue;
    if (size + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - size));
      size = max;
      truncated = true;
      over();
      continue;
    }
    chunks.push(chunk);
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
 * released and git killed when the stream ends, is cancelled, or `timeoutMs` passes.
 */
export async function gitStream(
  ctx: Signet,
  dir: string,
  args: string[],
  opts: { timeoutMs: number; client?: string },
): Promise<ReadableStream<Uint8Array>> {
  const release = await streamSlots.acquire(opts.client ? [opts.client] : []);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("git", {
      args: [...baseArgs(dir), ...args],
      env: readEnv(ctx),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch (err) {
    release();
    throw err;
  }
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
        if (end) controller.close();
        else controller.enqueue(value);
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
