/** Registry statistics (RegistryStatsResponse). */
import { countAttestations } from "../../db/registry_attestations.ts";
import { countBots } from "../../db/registry_bots.ts";
import { countLog, logHead } from "../../db/registry_log.ts";
import type { RegistryContext } from "./context.ts";

/** Current counts and metrics. */
export function registryStats(rc: RegistryContext) {
  const now = rc.now();
  const counts = countBots(rc.db);
  const log = countLog(rc.db, now - 24 * 3600_000);
  const head = logHead(rc.db);
  const by = (m: Record<string, number>) => ({ active: m.active ?? 0, revoked: m.revoked ?? 0 });
  const bots = by(counts.botsByStatus);
  const keys = by(counts.keysByStatus);
  return {
    bots_total: bots.active + bots.revoked,
    bots_by_status: bots,
    keys_total: keys.active + keys.revoked,
    keys_by_status: keys,
    attestations_total: countAttestations(rc.db),
    controllers_total: counts.controllers,
    operations_24h: log.since,
    log_entries: log.total,
    uptime_seconds: Math.floor((now - rc.startedAtMs) / 1000),
    generated_at: new Date(now).toISOString(),
    ...(head ? { log_head: head } : {}),
  };
}
