/** Small helpers shared by the bench: running commands, timing, statistics. */

import { cmd, type CmdOptions, type CmdResult } from "../testing/run.ts";

export { cmd, type CmdOptions, type CmdResult };

/** Like `cmd`, but throws with the output when the command fails. */
export async function cmdOk(
  program: string,
  args: string[],
  opts: CmdOptions = {},
): Promise<CmdResult> {
  const r = await cmd(program, args, opts);
  if (r.code !== 0) {
    throw new Error(
      `${program} ${args.join(" ")} failed (${r.code}):\n${r.stdout.slice(-2000)}\n${
        r.stderr.slice(-2000)
      }`,
    );
  }
  return r;
}

/** True when `program` is on PATH (or is an existing absolute path). */
export async function haveProgram(program: string): Promise<boolean> {
  if (program.startsWith("/")) return await exists(program);
  return (await cmd("sh", ["-c", `command -v ${program}`])).code === 0;
}

/** True when `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The median of `xs` (mean of the middle two for an even count). */
export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The `p`-quantile (0..1) of `xs`, nearest rank. */
export function quantile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** Rounds for display: 1 decimal under 100, integer above. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return "n/a";
  return Math.abs(n) < 100 ? n.toFixed(1) : Math.round(n).toString();
}

/** Formats a share as a whole percentage: `0.534` as `53%`. */
export function fmtPercent(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}

/** Formats a ratio as `0.53x`. */
export function fmtRatio(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}x` : "n/a";
}

/** Prints a progress line to stderr (stdout stays for the summary). */
export function progress(msg: string): void {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export { freePort } from "../testing/ports.ts";

/**
 * The fields of a /proc `stat` file after the command name (field 3 of stat(5) onwards), or null
 * when it cannot be read (the process exited). The name is in parentheses and may hold spaces.
 */
export function statFields(path: string): string[] | null {
  try {
    const stat = Deno.readTextFileSync(path);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/**
 * A number field of process `pid`'s /proc `status` file (`VmRSS`, `RssAnon` in KiB, `Threads`), or
 * 0 when it cannot be read (the process exited).
 */
export function procStatus(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(
      Deno.readTextFileSync(`/proc/${pid}/status`),
    );
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system, ms) of the process or thread whose stat file is `path`, or null. */
function statCpuMs(path: string): number | null {
  const fields = statFields(path);
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : null;
}

/** CPU time (user + system, ms) the main thread of process `pid` has used; 0 where /proc is missing. */
export function threadCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`) ?? 0;
}

/** CPU time (user + system, ms) of each thread of process `pid`, by thread id; empty without /proc. */
export function threadsCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const ms = statCpuMs(`/proc/${pid}/task/${task.name}/stat`);
      if (ms !== null) out.set(Number(task.name), ms);
    }
  } catch { /* no /proc, or the process is gone */ }
  return out;
}

/** The machine's CPU time so far (ms, summed over cores): busy and in all, from /proc/stat. */
export function machineCpuMs(): { busy: number; total: number } {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    // idle and iowait are the 4th and 5th fields.
    return { busy: (total - ticks[3] - ticks[4]) * 10, total: total * 10 };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** Waits until something accepts TCP connections on 127.0.0.1:`port`. */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
      await sleep(25);
    }
  }
}

/** Fills `n` bytes with random data (incompressible), in 64 KiB getRandomValues chunks. */
export function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let off = 0; off < n; off += 65536) {
    crypto.getRandomValues(out.subarray(off, Math.min(n, off + 65536)));
  }
  return out;
}

/** Env for a git client: no user or system config, fixed identity, no prompts. */
export function gitClientEnv(home: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/**
 * Where the Markdown section of `text` that starts with the line `heading` begins, and where the
 * next `## ` heading (or the text) begins; null when there is no such section.
 */
function sectionSpan(text: string, heading: string): { start: number; end: number } | null {
  const start = text.startsWith(`${heading}\n`) ? 0 : (text.indexOf(`\n${heading}\n`) + 1 || -1);
  if (start === -1) return null;
  const next = text.indexOf("\n## ", start + heading.length);
  return { start, end: next === -1 ? text.length : next + 1 };
}

/** The Markdown section of `text` that starts with the line `heading` (to the next `## `), or null. */
export function sectionOf(text: string, heading: string): string | null {
  const span = sectionSpan(text, heading);
  return span && text.slice(span.start, span.end).trimEnd() + "\n";
}

/**
 * Writes `section` (starting with its `## ` heading) into the Markdown file `file`: in place of the
 * section with the same heading, or at the end.
 */
export async function writeSection(file: string, section: string): Promise<void> {
  const text = await Deno.readTextFile(file).catch(() => "");
  const span = sectionSpan(text, section.split("\n", 1)[0]);
  if (span === null) {
    await Deno.writeTextFile(file, `${text.trimEnd()}\n\n${section.trimEnd()}\n`);
    return;
  }
  const rest = text.slice(span.end);
  await Deno.writeTextFile(
    file,
    `${text.slice(0, span.start)}${section.trimEnd()}\n${rest ? `\n${rest}` : ""}`,
  );
}
