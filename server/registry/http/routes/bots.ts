/** Bot record routes: create_bot, get_bot, update_bot, revoke_bot. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { controlledBots } from "../../controlled.ts";
import { getBot } from "../../bots.ts";
import type { RegistryContext } from "../../context.ts";
import {
  BotRecord,
  ControlledBotsResponse,
  RevokeBotRequest,
} from "../../../../protocol/registry/schemas.ts";
import {
  BotIdParam,
  errors,
  jsonResponse,
  mountMutation,
  type MutationSpec,
  type RegistryEnv,
  router,
} from "../router.ts";

const MUTATIONS: MutationSpec[] = [{
  method: "post",
  path: "/v1/bots",
  operationId: "create_bot",
  summary: "Create a bot record",
  rule: "The proof must be made by a key listed in the record itself.",
  body: [BotRecord, "the new record (server-managed fields are ignored)"],
  ok: [201, "created"],
  errors: [400, 409, 413, 500],
}, {
  method: "patch",
  path: "/v1/bots/{bot_id}",
  operationId: "update_bot",
  summary: "Update the mutable fields of a bot record",
  rule:
    'Fields present replace the stored ones (null clears owner or delegation); absent fields are kept. `keys` must list every current key, revoked ones included, in any order, with key_id, public_key and label unchanged (server-managed members are ignored). Changing `policy` or `controllers` must also satisfy every existing rule. Optional If-Match: "<version>".',
  body: [BotRecord, "fields to change"],
  ok: [200, "updated record"],
  errors: [400, 404, 412, 413, 500],
}, {
  method: "post",
  path: "/v1/bots/{bot_id}/revoke",
  operationId: "revoke_bot",
  summary: "Revoke the whole bot identity (final)",
  rule: "Governed by the `revoke_bot` rule. Every key is revoked too.",
  body: [RevokeBotRequest, "reason and proof"],
  ok: [200, "revoked record"],
  errors: [400, 404, 412, 413, 500],
}];

const controlled = createRoute({
  method: "get",
  path: "/v1/bots/{bot_id}/controlled",
  operationId: "controlled_bots",
  summary: "The bots this bot controls (those naming it in `controllers`), by bot_id",
  request: {
    params: BotIdParam,
    query: z.object({
      limit: z.string().optional().openapi({ description: "1-100, default 20" }),
      cursor: z.string().optional().openapi({ description: "next_cursor of the previous page" }),
    }),
  },
  responses: { 200: jsonResponse(ControlledBotsResponse, "one page"), ...errors(400, 404, 500) },
});

const get = createRoute({
  method: "get",
  path: "/v1/bots/{bot_id}",
  operationId: "get_bot",
  summary: "Read a bot record",
  request: { params: BotIdParam },
  responses: {
    200: jsonResponse(BotRecord, "the record; ETag is its version"),
    ...errors(404, 500),
  },
});

/** Routes for bot records. */
export function botRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();
  app.openapi(get, async (c) => {
    const bot = await getBot(rc.store, c.req.valid("param").bot_id);
    return c.json(bot as never, 200, { ETag: `"${bot.version}"` });
  });
  app.openapi(controlled, async (c) =>
    c.json(
      await controlledBots(rc, c.req.valid("param").bot_id, c.req.valid("query")) as never,
      200,
    ));
  for (const spec of MUTATIONS) mountMutation(app, rc, spec);
  return app;
}
