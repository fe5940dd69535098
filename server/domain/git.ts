/** Facts about running git shared by both transports. */
import type { Signet } from "../context.ts";

/** Accepts a `GIT_PROTOCOL` value only of the form git sends (`version=2`, `key=value:...`). */
export function gitProtocolEnv(value: string | undefined | null): Record<string, string> {
  if (!value || value.length > 256 || !/^[A-Za-z0-9=._:-]+$/.test(value)) return {};
  return { GIT_PROTOCOL: value };
}

/**
 * The git configuration every server git runs with, as `GIT_CONFIG_*` variables (git's own way of
 * passing settings through the environment): pushes of at most `maxPushBytes`, kept as the pack
 * the client sent, every pushed object checked, and no `git gc --auto` inside a push. The bench's
 * thin servers run git with it too (bench/baselines/thin_server.ts).
 */
export function serverGitConfig(maxPushBytes: number): Record<string, string> {
  const settings: [string, string][] = [
    ["receive.maxInputSize", String(maxPushBytes)],
    ["receive.unpackLimit", "1"],
    // Every pushed object is checked (index-pack --strict): no .gitmodules path escapes, no
    // `.git` tree entries, no malformed commits (docs/decisions/git-hosting.md, "Pushed objects checked").
    ["receive.fsckObjects", "true"],
    // receive-pack would run `git gc --auto` after answering and before exiting, and the client
    // waits for its exit; the push's bookkeeping runs it instead (repos.ts, recordPush;
    // docs/decisions/git-hosting.md, "Auto gc after the client is answered").
    ["receive.autogc", "false"],
  ];
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * The environment every git server process runs with, on every transport: a clean PATH and HOME,
 * no system config, serverGitConfig, and a validated GIT_PROTOCOL.
 */
export function gitServerEnv(ctx: Signet, gitProtocol?: string | null): Record<string, string> {
  return {
    PATH: ctx.config.gitPath,
    HOME: ctx.config.dataDir,
    GIT_CONFIG_NOSYSTEM: "1",
    ...serverGitConfig(ctx.config.maxPushBytes),
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

/**
 * Limits how many git server processes (upload-pack, receive-pack) have work at once, and how many
 * of them one client (an address, a user) may hold: a request names its clients' keys, and waits
 * while any of them holds `perKey` slots even when others are free. Waiting requests are served in
 * order, except that one whose key is at its cap lets later ones of other keys pass.
 */
export class GitSlots {
  #free: number;
  #held = new Map<string, number>();
  #waiting: { keys: readonly string[]; grant: () => void }[] = [];
  constructor(readonly limit: number, readonly perKey = limit) {
    this.#free = limit;
  }

  /**
   * Waits for a free slot that none of `keys` is over its cap for; call the returned function
   * exactly once when git has no more work (extra calls do nothing).
   */
  acquire(keys: readonly string[] = []): Promise<() => void> {
    if (this.#free > 0 && this.#fits(keys)) {
      this.#take(keys);
      return Promise.resolve(this.#releaser(keys));
    }
    return new Promise((resolve) => {
      this.#waiting.push({ keys, grant: () => resolve(this.#releaser(keys)) });
    });
  }

  /** Transfers waiting for a slot right now. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** Slots held under `key` right now. */
  heldBy(key: string): number {
    return this.#held.get(key) ?? 0;
  }

  #fits(keys: readonly string[]): boolean {
    return keys.every((key) => (this.#held.get(key) ?? 0) < this.perKey);
  }

  #take(keys: readonly string[]): void {
    this.#free--;
    for (const key of keys) this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
  }

  #releaser(keys: readonly string[]): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#free++;
      for (const key of keys) {
        const n = (this.#held.get(key) ?? 1) - 1;
        if (n > 0) this.#held.set(key, n);
        else this.#held.delete(key);
      }
      for (let i = 0; i < this.#waiting.length && this.#free > 0;) {
        const next = this.#waiting[i];
        if (!this.#fits(next.keys)) {
          i++;
          continue;
        }
        this.#waiting.splice(i, 1);
        this.#take(next.keys);
        next.grant();
      }
    };
  }
}

const pools = new WeakMap<Signet["config"], GitSlots>();

/**
 * The git slots of the server `ctx` serves: SERVICE_GIT_CONCURRENCY of them (default 8 per CPU
 * core), at most SERVICE_GIT_CONCURRENCY_PER_CLIENT per client address or user. A clone storm
 * then queues instead of starting every pack-objects at once, which on a small machine only adds
 * context switches and memory, and no one client can take every slot.
 */
export function gitSlots(ctx: Signet): GitSlots {
  let pool = pools.get(ctx.config);
  if (!pool) {
    pool = new GitSlots(ctx.config.gitConcurrency, ctx.config.gitConcurrencyPerClient);
    pools.set(ctx.config, pool);
  }
  return pool;
}
