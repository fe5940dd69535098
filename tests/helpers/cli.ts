/** Driving the `signet` client as a subprocess with its own temporary HOME. */
import { run, type RunOptions, type RunResult, stdoutOf } from "../../testing/run.ts";
import type { TestServer } from "./server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The project's main.ts, as the CLI is started in tests. */
export const MAIN = `${ROOT}main.ts`;

let denoDir: string | undefined;

/** Deno's cache dir of this process, so a subprocess with another HOME reuses it (no download). */
async function realDenoDir(): Promise<string> {
  if (denoDir) return denoDir;
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return (denoDir = fromEnv);
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  denoDir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
  return denoDir;
}

/** A person at a machine: a temp HOME with its own config dir, talking to one server. */
export interface CliUser {
  home: string;
  /** The env every command of this user runs with. */
  env: Record<string, string>;
  /** The config file the client writes. */
  configFile: string;
}

/** Makes a temp HOME for a client of `server`; `env` adds or overrides variables. */
export async function cliUser(
  server: TestServer,
  env: Record<string, string> = {},
): Promise<CliUser> {
  const home = await Deno.makeTempDir({ prefix: "signet-home-" });
  const full: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    DENO_DIR: await realDenoDir(),
    NO_COLOR: "1",
    SERVICE_HOST: server.httpUrl,
    SERVICE_USER: "",
    SERVICE_SSH_KEY: "",
    SSH_AUTH_SOCK: "",
    SSH_ASKPASS: "",
    DISPLAY: "",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
    ...env,
  };
  const xdg = full.XDG_CONFIG_HOME || `${home}/.config`;
  return { home, env: full, configFile: `${xdg}/signet/config.json` };
}

/** Runs `signet <args>` as `user`. */
export function signet(
  user: CliUser,
  args: string[],
  opts: RunOptions = {},
): Promise<RunResult> {
  return run(Deno.execPath(), ["run", "-A", MAIN, ...args], {
    cwd: opts.cwd ?? user.home,
    env: { ...user.env, ...opts.env },
    stdin: opts.stdin,
  });
}

/** Runs `signet <args>` and throws with its output unless it exits 0. */
export async function signetOk(
  user: CliUser,
  args: string[],
  opts: RunOptions = {},
): Promise<string> {
  return stdoutOf(await signet(user, args, opts), ["signet", ...args]);
}

/** Runs git as `user`. */
export function git(
  user: CliUser,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return run("git", args, { cwd: opts.cwd ?? user.home, env: { ...user.env, ...opts.env } });
}

/** Reads the client's config file as JSON. */
export async function readConfig(user: CliUser): Promise<Record<string, string | undefined>> {
  return JSON.parse(await Deno.readTextFile(user.configFile));
}

/** Runs `signet <args>` with exactly `env` (the server's commands: db copy, backup, restore). */
export function runSignet(args: string[], env: Record<string, string>): Promise<RunResult> {
  return run(Deno.execPath(), ["run", "-A", MAIN, ...args], { env });
}

/** GETs `url`: its status, ETag and body text, to compare answers byte for byte. */
export async function rawResponse(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, etag: res.headers.get("etag"), body: await res.text() };
}
