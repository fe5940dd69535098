/** Facts about running git shared by both transports. */
import type { Signet } from "../context.ts";

/** Accepts a `GIT_PROTOCOL` value only of the form git sends (`version=2`, `key=value:...`). */
export function gitProtocolEnv(value: string | undefined | null): Record<string, string> {
  if (!value || value.length > 256 || !/^[A-Za-z0-9=._:-]+$/.test(value)) return {};
  return { GIT_PROTOCOL: value };
}

/**
 * The environment every git server process runs with, on every transport: a clean PATH and HOME,
 * no system config, the push size limit, and a validated GIT_PROTOCOL.
 */
export function gitServerEnv(ctx: Signet, gitProtocol?: string | null): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: ctx.config.dataDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "receive.maxInputSize",
    GIT_CONFIG_VALUE_0: String(ctx.config.maxPushBytes),
    GIT_CONFIG_KEY_1: "receive.unpackLimit",
    GIT_CONFIG_VALUE_1: "1",
    ...gitProtocolEnv(gitProtocol),
  };
}

/** True when a Git-Protocol value asks for version 2 (the highest `version=N` wins). */
export function isProtocolV2(value: string | null | undefined): boolean {
  let version = 0;
  for (const part of (value ?? "").split(":")) {
    const m = /^version=(\d+)$/.exec(part);
    if (m) version = Math.max(version, Number(m[1]));
  }
  return version === 2;
}

const programs = new Map<string, string>();

/**
 * Path of a git helper program (e.g. `git-http-backend`) in git's exec path, found once with
 * `git --exec-path`; plain `git` when it is not there. Spawning the helper directly skips the
 * `git` wrapper process (one fork+exec) on every request.
 */
export function gitProgram(name: string): string {
  let path = programs.get(name);
  if (path === undefined) {
    path = "git";
    try {
      const out = new Deno.Command("git", {
        args: ["--exec-path"],
        stdout: "piped",
        stderr: "null",
      })
        .outputSync();
      const dir = new TextDecoder().decode(out.stdout).trim();
      if (out.success && dir && Deno.statSync(`${dir}/${name}`).isFile) path = `${dir}/${name}`;
    } catch { /* keep plain git */ }
    programs.set(name, path);
  }
  return path;
}

/** Limits how many git server processes (upload-pack, receive-pack) run at once. */
export class GitSlots {
  #free: number;
  #waiting: (() => void)[] = [];
  constructor(readonly limit: number) {
    this.#free = limit;
  }

  /** Waits for a free slot; call the returned function exactly once when git has exited. */
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }

  /** Transfers waiting for a slot right now. */
  get queued(): number {
    return this.#waiting.length;
  }
}

/**
 * The process-wide git slots: SERVICE_GIT_CONCURRENCY, default 8 per CPU core. A clone storm then
 * queues instead of starting every pack-objects at once, which on a small machine only adds
 * context switches and memory.
 */
export const gitSlots = new GitSlots(gitConcurrency(Deno.env.get("SERVICE_GIT_CONCURRENCY")));

function gitConcurrency(value: string | undefined): number {
  const n = Number(value);
  if (value && Number.isInteger(n) && n >= 1) return n;
  return Math.max(8, 8 * navigator.hardwareConcurrency);
}
