/** Search route. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { RegistryContext } from "../../context.ts";
import { searchBots } from "../../search.ts";
import { searchCounts } from "../../search_counts.ts";
import {
  BotStatus,
  SearchCountsResponse,
  SearchResponse,
} from "../../../../protocol/registry/schemas.ts";
import { errors, jsonResponse, type RegistryEnv, router } from "../router.ts";

const search = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  summary: "Search bots",
  description:
    "`q` matches a case-insensitive substring of bot_id, name or description; `status` and `capability` filter exactly. Results are ordered by bot_id ascending; pass `next_cursor` as `cursor` for the next page.",
  request: {
    query: z.object({
      q: z.string().optional(),
      status: BotStatus.optional(),
      capability: z.string().optional(),
      limit: z.string().optional().openapi({ description: "integer 1-100, default 20" }),
      cursor: z.string().optional(),
    }),
  },
  responses: { 200: jsonResponse(SearchResponse, "one page of results"), ...errors(400, 500) },
});

const counts = createRoute({
  method: "get",
  path: "/v1/search/counts",
  operationId: "search_counts",
  summary: "How many bots a search matches, with status and capability facets",
  description:
    "The same `q`, `status` and `capability` as /v1/search (`cursor` and `limit` are ignored). Counts stop at `count_limit` matches: a larger `total` is reported as `count_limit` with `total_exact` false (the unfiltered total is always exact). Each facet leaves its own filter out.",
  request: {
    query: z.object({
      q: z.string().optional(),
      status: BotStatus.optional(),
      capability: z.string().optional(),
    }),
  },
  responses: { 200: jsonResponse(SearchCountsResponse, "the counts"), ...errors(400, 500) },
});

/** The search route. */
export function searchRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();
  app.openapi(
    search,
    async (c) =>
      c.body(await searchBots(rc, c.req.valid("query")), 200, {
        "Content-Type": "application/json",
      }) as never,
  );
  app.openapi(counts, async (c) => c.json(await searchCounts(rc, c.req.valid("query")), 200));
  return app;
}
