/** Periodic housekeeping: expired login challenges and tokens, and idle rate-limit buckets. */
import type { Signet } from "./context.ts";
import { CHALLENGE_LIFETIME_MS } from "./domain/accounts.ts";
import { log } from "./log.ts";
import { emptyTrash } from "./domain/repo_locks.ts";

/** Extra cleanup steps other parts register (e.g. the registry's expired nonces). */
export type CleanupStep = (ctx: Signet, nowMs: number) => number | Promise<number>;

/** Removes what deleted repositories left in the trash (a cleanup step). */
export const emptyRepoTrash: CleanupStep = (ctx) => emptyTrash(ctx);

/** Keeps the clone cache within its age and size limits (a cleanup step). */
export const pruneCloneCache: CleanupStep = (ctx, nowMs) => ctx.cloneCache?.prune(nowMs) ?? 0;

/** Runs every cleanup step once; returns how many rows they removed. */
export async function runMaintenance(
  ctx: Signet,
  steps: CleanupStep[] = [],
  nowMs = Date.now(),
): Promise<number> {
  let removed = await ctx.store.challenges.deleteExpired(nowMs - CHALLENGE_LIFETIME_MS);
  removed += await ctx.store.tokens.deleteExpired(new Date(nowMs).toISOString());
  for (const step of steps) removed += await step(ctx, nowMs);
  removed += await ctx.limiter.sweep(nowMs);
  return removed;
}

let runs = 0;

/** How many timed maintenance runs have finished in this process (the idle watch's chores). */
export function maintenanceRuns(): number {
  return runs;
}

/** Starts running maintenance every `intervalMs`; returns a function that stops it. */
export function startMaintenance(
  ctx: Signet,
  steps: CleanupStep[] = [],
  intervalMs = 60_000,
): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return; // a slow database: never pile runs up
    running = true;
    try {
      const removed = await runMaintenance(ctx, steps);
      if (removed > 0) log("info", "maintenance", { expired_rows_removed: removed });
    } catch (err) {
      log("error", "maintenance failed", { error: String(err) });
    } finally {
      running = false;
      runs++;
    }
  }, intervalMs);
  return () => clearInterval(timer);
}
