/** Periodic housekeeping: expired login challenges and tokens, and idle rate-limit buckets. */
import { deleteExpiredChallenges } from "../db/challenges.ts";
import { deleteExpiredTokens } from "../db/tokens.ts";
import type { Signet } from "./context.ts";
import { CHALLENGE_LIFETIME_MS } from "./domain/accounts.ts";
import { log } from "./log.ts";

/** Extra cleanup steps other parts register (e.g. the registry's expired nonces). */
export type CleanupStep = (ctx: Signet, nowMs: number) => number;

/** Keeps the clone cache within its age and size limits (a cleanup step). */
export const pruneCloneCache: CleanupStep = (ctx, nowMs) => ctx.cloneCache?.prune(nowMs) ?? 0;

/** Runs every cleanup step once; returns how many rows they removed. */
export function runMaintenance(ctx: Signet, steps: CleanupStep[] = [], nowMs = Date.now()): number {
  let removed = deleteExpiredChallenges(ctx.db, nowMs - CHALLENGE_LIFETIME_MS);
  removed += deleteExpiredTokens(ctx.db, new Date(nowMs).toISOString());
  for (const step of steps) removed += step(ctx, nowMs);
  ctx.limiter.sweep(nowMs);
  return removed;
}

/** Starts running maintenance every `intervalMs`; returns a function that stops it. */
export function startMaintenance(
  ctx: Signet,
  steps: CleanupStep[] = [],
  intervalMs = 60_000,
): () => void {
  const timer = setInterval(() => {
    try {
      const removed = runMaintenance(ctx, steps);
      if (removed > 0) log("info", "maintenance", { expired_rows_removed: removed });
    } catch (err) {
      log("error", "maintenance failed", { error: String(err) });
    }
  }, intervalMs);
  return () => clearInterval(timer);
}
