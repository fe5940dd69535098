/** Running real command-line tools (git, ssh-keygen, ssh) from the tests and the bench. */

/** The result of a finished command. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for `run`: extra `env` over git's quiet defaults, and text for stdin. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
}

/** Options for `cmd`. */
export interface CmdOptions {
  cwd?: string;
  /** The child's whole environment besides what Deno passes on (nothing is added). */
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  /** Run as this uid/gid (the bench runs as root; baselines own their repositories). */
  uid?: number;
  gid?: number;
}

/** Output of a finished command, with its time from spawn to exit. */
export interface CmdResult extends RunResult {
  ms: number;
}

/** Runs a command to completion, timing it from spawn to exit; never throws on exit code. */
export async function cmd(
  program: string,
  args: string[],
  opts: CmdOptions = {},
): Promise<CmdResult> {
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    uid: opts.uid,
    gid: opts.gid,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(
      typeof opts.stdin === "string" ? new TextEncoder().encode(opts.stdin) : opts.stdin,
    );
    await w.close();
  }
  const out = await child.output();
  const ms = performance.now() - started;
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr), ms };
}

/** Runs `program args…`, optionally in `cwd`, with extra `env` (git never prompts, ignores the
 * system config) and `stdin`; never throws on exit code. */
export async function run(
  program: string,
  args: string[],
  opts: RunOptions = {},
): Promise<RunResult> {
  const env = { GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", ...opts.env };
  const { code, stdout, stderr } = await cmd(program, args, { ...opts, env });
  return { code, stdout, stderr };
}

/** Like run, but throws with the output when the command fails. */
export async function runOk(cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  return stdoutOf(await run(cmd, args, opts), [cmd, ...args]);
}

/** The stdout of the finished command `argv`; throws with its output when it failed. */
export function stdoutOf(r: RunResult, argv: string[]): string {
  if (r.code !== 0) {
    throw new Error(`${argv.join(" ")} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/** Env that makes git ignore the user's and system config, with a fixed identity. */
export function gitEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** A spawned program (stdin and stdout null) whose stderr is read into `stderr()` as it comes. */
export interface SpawnedWithStderr {
  child: Deno.ChildProcess;
  /** What it has written to stderr so far. */
  stderr(): string;
  /** Settles once stderr is closed and read. */
  drained: Promise<void>;
}

/** Spawns `program args…` with `opts.cwd` and `opts.env` (added to Deno's), reading its stderr. */
export function spawnWithStderr(
  program: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): SpawnedWithStderr {
  const child = new Deno.Command(program, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) text += decoder.decode(chunk, { stream: true });
  })();
  return { child, stderr: () => text, drained };
}
