/** Audit log routes: per bot and the whole log in order. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { RegistryContext } from "../../context.ts";
import { readLog } from "../../log.ts";
import { LogResponse } from "../../../../protocol/registry/schemas.ts";
import { BotIdParam, errors, jsonResponse, type RegistryEnv, router } from "../router.ts";

const LogQuery = z.object({
  after: z.string().optional().openapi({
    description: "return entries with seq > after (default 0)",
  }),
  limit: z.string().optional().openapi({ description: "1-1000, default 100" }),
  order: z.string().optional().openapi({
    description:
      "asc (default): oldest first, paged with `after`; desc: newest first, paged with `before`",
  }),
  before: z.string().optional().openapi({
    description: "order=desc only: return entries with seq < before (default: from the newest)",
  }),
});

const all = createRoute({
  method: "get",
  path: "/v1/log",
  operationId: "export_log",
  summary: "The whole audit log in order (for export and replay)",
  request: { query: LogQuery },
  responses: {
    200: jsonResponse(LogResponse, "one page; next_after is null at the end"),
    ...errors(400, 500),
  },
});

const ofBot = createRoute({
  method: "get",
  path: "/v1/bots/{bot_id}/log",
  operationId: "bot_log",
  summary: "The audit log entries of one bot, in order",
  request: { params: BotIdParam, query: LogQuery },
  responses: { 200: jsonResponse(LogResponse, "one page"), ...errors(400, 404, 500) },
});

/** Routes for the audit log. */
export function logRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();
  app.openapi(all, async (c) => c.json(await readLog(rc, c.req.valid("query")) as never, 200));
  app.openapi(
    ofBot,
    async (c) =>
      c.json(
        await readLog(rc, { ...c.req.valid("query"), botId: c.req.valid("param").bot_id }) as never,
        200,
      ),
  );
  return app;
}
