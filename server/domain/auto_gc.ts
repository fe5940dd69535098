/**
 * git's housekeeping after a push, run once the pusher has its answer. Left to itself,
 * `git receive-pack` runs `git gc --auto` after reporting and before exiting, and the client waits
 * for that exit (over SSH for the channel to close, over HTTP for the response to end): about 2 ms
 * of every push here. Signet turns that off (`receive.autogc=false`, git.ts) and runs the same
 * check from the push's bookkeeping (repos.ts, recordPush). git decides as before: nothing while
 * the repository has few packs and loose objects, else a repack in the background.
 */
import type { Signet } from "../context.ts";
import { log } from "../log.ts";
import { gitServerEnv } from "./git.ts";

/** How much of git's complaint a warning keeps. */
const STDERR_KEPT = 2048;

/**
 * Runs `git gc --auto --quiet` on the bare repository at `dir` with the server's git environment;
 * resolves to whether git ran and succeeded. A repack git starts is detached (git's default,
 * `gc.autoDetach`), as receive-pack's was, and not waited for. Never throws. What git says goes to
 * the log as a warning (receive-pack used to pass it to the pusher): among it, that an earlier
 * detached gc failed, after which git skips `gc --auto` for a day (`gc.logExpiry`).
 */
export async function autoGc(ctx: Signet, dir: string): Promise<boolean> {
  const out = await new Deno.Command("git", {
    args: ["--git-dir", dir, "gc", "--auto", "--quiet"],
    env: gitServerEnv(ctx),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output().catch((err) => {
    log("warn", "git gc --auto could not start", { repo_dir: dir, error: String(err) });
    return null;
  });
  if (!out) return false;
  const said = new TextDecoder().decode(out.stderr.subarray(0, STDERR_KEPT)).trim();
  if (!out.success || said !== "") {
    log("warn", "git gc --auto", { repo_dir: dir, exit: out.code, stderr: said });
  }
  return out.success;
}
