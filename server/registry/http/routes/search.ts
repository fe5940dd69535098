/** Search route. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { RegistryContext } from "../../context.ts";
import { searchBots } from "../../search.ts";
import { BotStatus, SearchResponse } from "../../../../protocol/registry/schemas.ts";
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
  return app;
}
