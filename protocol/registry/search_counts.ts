/**
 * The answer of `GET /v1/search/counts` (SearchCountsResponse in schemas.ts): what the registry
 * computes (server/registry/search_counts.ts) and the registry browser shows.
 */

/** A search's total and facets. */
export interface SearchCounts {
  total: number;
  total_exact: boolean;
  by_status: { active: number; revoked: number };
  capabilities: { capability: string; count: number }[];
  facets_exact: boolean;
  count_limit: number;
}
