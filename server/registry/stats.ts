/** Registry statistics (RegistryStatsResponse). */
import type { RegistryContext } from "./context.ts";
import { headCache } from "./head_cache.ts";

/**
 * Current counts and metrics. The counts are kept while the log head stays put (head_cache.ts, at
 * most 10 s: `operations_24h` may lag by as much); uptime and generation time are always now.
 */
export async function registryStats(rc: RegistryContext) {
  const now = rc.now();
  const { head, ...counts } = await headCache(rc).get(rc.store, "stats", () => countAll(rc, now));
  return {
    ...counts,
    uptime_seconds: Math.floor((now - rc.startedAtMs) / 1000),
    generated_at: new Date(now).toISOString(),
    ...(head ? { log_head: head } : {}),
  };
}

async function countAll(rc: RegistryContext, now: number) {
  const counts = await rc.store.bots.counts();
  const log = await rc.store.log.count(now - 24 * 3600_000);
  const head = await rc.store.log.head();
  const by = (m: Record<string, number>) => ({ active: m.active ?? 0, revoked: m.revoked ?? 0 });
  const bots = by(counts.botsByStatus);
  const keys = by(counts.keysByStatus);
  return {
    bots_total: bots.active + bots.revoked,
    bots_by_status: bots,
    keys_total: keys.active + keys.revoked,
    keys_by_status: keys,
    attestations_total: await rc.store.attestations.count(),
    controllers_total: counts.controllers,
    operations_24h: log.since,
    log_entries: log.total,
    head,
  };
}
