/** The registry's periodic cleanup step (run by server/maintenance.ts). */
import type { Signet } from "../context.ts";

/** Forgets consumed nonces that have expired; returns how many rows went. */
export function purgeExpiredRegistryNonces(ctx: Signet, nowMs: number): Promise<number> {
  return ctx.store.nonces.purge(nowMs);
}
