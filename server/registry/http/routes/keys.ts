/** Key routes: add_key, remove_key, rotate_key. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { RegistryContext } from "../../context.ts";
import {
  AddKeyRequest,
  BotRecord,
  RemoveKeyRequest,
  RotateKeyRequest,
} from "../../../../protocol/registry/schemas.ts";
import {
  BotIdParam,
  BotKeyParams,
  errors,
  jsonBody,
  jsonResponse,
  MUTATION_AUTH,
  mutationResponse,
  type RegistryEnv,
  router,
} from "../router.ts";

const add = createRoute({
  method: "post",
  path: "/v1/bots/{bot_id}/keys",
  operationId: "add_key",
  summary: "Add a key to a bot",
  description:
    `${MUTATION_AUTH} Governed by the \`add_key\` rule. A record holds at most 32 keys, revoked ones included: a 33rd is a 409.`,
  request: { params: BotIdParam, body: jsonBody(AddKeyRequest, "the new key and proof") },
  responses: {
    200: jsonResponse(BotRecord, "updated record with the new key"),
    ...errors(400, 404, 409, 412, 413, 500),
  },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/bots/{bot_id}/keys/{key_id}",
  operationId: "remove_key",
  summary: "Revoke one key of a bot",
  description:
    `${MUTATION_AUTH} Governed by the \`revoke_key\` rule. The key stays in the record with status revoked. The last active key cannot be removed (400): revoke the bot instead.`,
  request: { params: BotKeyParams, body: jsonBody(RemoveKeyRequest, "reason and proof") },
  responses: {
    200: jsonResponse(BotRecord, "updated record with the key revoked"),
    ...errors(400, 404, 412, 413, 500),
  },
});

const rotate = createRoute({
  method: "post",
  path: "/v1/bots/{bot_id}/rotate",
  operationId: "rotate_key",
  summary: "Revoke an old key and add a new one atomically",
  description:
    `${MUTATION_AUTH} Governed by the \`rotate_key\` rule, or when there is none by both the \`add_key\` and \`revoke_key\` rules. Policy signers naming the old key move to the new key. A record holds at most 32 keys, revoked ones included: a 33rd is a 409.`,
  request: { params: BotIdParam, body: jsonBody(RotateKeyRequest, "old key id, new key, proof") },
  responses: {
    200: jsonResponse(BotRecord, "updated record with the rotated key"),
    ...errors(400, 404, 409, 412, 413, 500),
  },
});

/** Routes for keys. */
export function keyRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();

  app.openapi(add, async (c) => {
    const botId = c.req.valid("param").bot_id;
    return await mutationResponse(c, rc, { operation: "add_key", botId }) as never;
  });

  app.openapi(remove, async (c) => {
    const { bot_id, key_id } = c.req.valid("param");
    return await mutationResponse(c, rc, {
      operation: "remove_key",
      botId: bot_id,
      keyId: key_id,
    }) as never;
  });

  app.openapi(rotate, async (c) => {
    const botId = c.req.valid("param").bot_id;
    return await mutationResponse(c, rc, { operation: "rotate_key", botId }) as never;
  });
  return app;
}
