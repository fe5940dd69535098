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
import { BOT_SORTS } from "../../../../protocol/registry/search_sort.ts";
import { errors, jsonResponse, type RegistryEnv, router } from "../router.ts";

const search = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  summary: "Search bots",
  description:
    "`q` matches a case-insensitive substring of bot_id, name or description; `status` and `capability` filter exactly. Results are ordered by `sort` (bot_id ascending by default); pass `next_cursor` as `cursor` for the next page, with the same `sort`.",
  request: {
    query: z.object({
      q: z.string().optional(),
      status: BotStatus.optional(),
      capability: z.string().optional(),
      sort: z.enum(BOT_SORTS).optional().openapi({
        description:
          "the order: `bot_id` (the default), `name` (the bot's name, or its id without one, ASCII letters lower-cased), `created` or `updated` (the record's timestamps), ascending, or descending with a leading `-` (`-created`: newest first). Ties are broken by bot_id, in the same direction; keys compare in byte order.",
      }),
      limit: z.string().optional().openapi({ description: "integer 1-100, default 20" }),
      cursor: z.string().optional().openapi({
        description:
          "`next_cursor` of the previous page; a cursor of another `sort` is a 400 (start from the first page)",
      }),
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
    "The same `q`, `status` and `capability` as /v1/search (`sort`, `cursor` and `limit` are ignored). Counts stop at `count_limit` matches: a larger `total` is reported as `count_limit` with `total_exact` false (the unfiltered total is always exact). Each facet leaves its own filter out.",
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
