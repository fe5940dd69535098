/**
 * git's housekeeping after a push, run once the pusher has its answer. Left to itself,
 * `git receive-pack` runs `git gc --auto` after reporting and before exiting, and the client waits
 * for that exit (over SSH for the channel to close, over HTTP for the response to end): about 2 ms
 * of every push here. Signet turns that off (`receive.autogc=false`, git.ts) and runs the same
 * check from the push's bookkeeping (repos.ts, recordPush). git decides as before: nothing while
 * the repository has few packs and loose objects, else a repack in the background.
 */
import type { Signet } from "../context.ts";
import { gitServerEnv } from "./git.ts";

/**
 * Runs `git gc --auto --quiet` on the bare repository at `dir` with the server's git environment;
 * resolves to whether git ran and succeeded (a repack git starts is detached, as receive-pack's
 * would be, and not waited for). Never throws.
 */
export async function autoGc(ctx: Signet, dir: string): Promise<boolean> {
  const out = await new Deno.Command("git", {
    args: ["--git-dir", dir, "gc", "--auto", "--quiet"],
    env: gitServerEnv(ctx),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output().catch(() => null);
  return out?.success ?? false;
}
