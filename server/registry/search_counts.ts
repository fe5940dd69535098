/**
 * A search's total and facets (`GET /v1/search/counts`): how many bots match, and for the status
 * and capability filters how many matches each value would give. Counting stops at COUNT_LIMIT
 * matches per count (a capped total reads "1,000+"), so a broad term at 100,000 bots costs a
 * bounded read, like a page does; only the unfiltered total is exact at any size, from the
 * registry's counts. Each facet leaves its own filter out: the status facet of a search for
 * active bots still says how many revoked ones match. Counts are kept while the audit log's head
 * stays put, 10 s at most (head_cache.ts).
 */
import type { BotMatch, BotQuery } from "../../db/registry_bots.ts";
import type { SearchCounts } from "../../protocol/registry/search_counts.ts";
import { headCache } from "./head_cache.ts";
import { planSearch, type SearchContext, type SearchParams } from "./search.ts";

/** Matches counted at most, per count. */
export const COUNT_LIMIT = 1000;
/** Capabilities listed in the facet at most. */
export const CAPABILITY_FACETS = 20;

/**
 * The total and facets of the search `params` (sort, cursor and limit ignored); 400 for bad ones. Kept
 * while the log head stays put (head_cache.ts).
 */
export async function searchCounts(rc: SearchContext, params: SearchParams): Promise<SearchCounts> {
  const { query } = planSearch({ ...params, sort: undefined, cursor: undefined, limit: undefined });
  const key = `counts\n${query.q ?? ""}\n${query.status ?? ""}\n${query.capability ?? ""}`;
  return await headCache(rc).get(rc.store, key, () => countSearch(rc, query));
}

async function countSearch(rc: SearchContext, query: BotQuery): Promise<SearchCounts> {
  const all: BotQuery = { ...query, after: null, limit: COUNT_LIMIT + 1 };
  const matches = (q: BotQuery) => rc.store.bots.matches(q, rc.searchPlans);
  const [found, anyStatus, anyCapability] = await Promise.all([
    matches(all),
    all.status === null ? null : matches({ ...all, status: null }),
    all.capability === null ? null : matches({ ...all, capability: null }),
  ]);
  const byStatusOf = anyStatus ?? found;
  const capabilitiesOf = anyCapability ?? found;
  const counted = (m: BotMatch[]) => m.slice(0, COUNT_LIMIT);
  const byStatus = { active: 0, revoked: 0 };
  for (const m of counted(byStatusOf)) {
    if (m.status === "active" || m.status === "revoked") byStatus[m.status]++;
  }
  const capabilities = await rc.store.bots.capabilityCounts(
    counted(capabilitiesOf).map((m) => m.botId),
    CAPABILITY_FACETS,
  );
  let total = Math.min(found.length, COUNT_LIMIT);
  let totalExact = found.length <= COUNT_LIMIT;
  if (!totalExact && all.q === null && all.status === null && all.capability === null) {
    const counts = await rc.store.bots.counts();
    total = Object.values(counts.botsByStatus).reduce((a, b) => a + b, 0);
    totalExact = true;
  }
  return {
    total,
    total_exact: totalExact,
    by_status: byStatus,
    capabilities,
    facets_exact: byStatusOf.length <= COUNT_LIMIT && capabilitiesOf.length <= COUNT_LIMIT,
    count_limit: COUNT_LIMIT,
  };
}
