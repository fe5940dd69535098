/** Key routes: add_key, remove_key, rotate_key. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { RegistryContext } from "../../context.ts";
import {
  AddKeyRequest,
  RemoveKeyRequest,
  RotateKeyRequest,
} from "../../../../protocol/registry/schemas.ts";
import { mountMutation, type MutationSpec, type RegistryEnv, router } from "../router.ts";

const CAPACITY = "A record holds at most 32 keys, revoked ones included: a 33rd is a 409.";

const MUTATIONS: MutationSpec[] = [{
  method: "post",
  path: "/v1/bots/{bot_id}/keys",
  operationId: "add_key",
  summary: "Add a key to a bot",
  rule: `Governed by the \`add_key\` rule. ${CAPACITY}`,
  body: [AddKeyRequest, "the new key and proof"],
  ok: [200, "updated record with the new key"],
  errors: [400, 404, 409, 412, 413, 500],
}, {
  method: "delete",
  path: "/v1/bots/{bot_id}/keys/{key_id}",
  operationId: "remove_key",
  summary: "Revoke one key of a bot",
  rule:
    "Governed by the `revoke_key` rule. The key stays in the record with status revoked. The last active key cannot be removed (400): revoke the bot instead.",
  body: [RemoveKeyRequest, "reason and proof"],
  ok: [200, "updated record with the key revoked"],
  errors: [400, 404, 412, 413, 500],
}, {
  method: "post",
  path: "/v1/bots/{bot_id}/rotate",
  operationId: "rotate_key",
  summary: "Revoke an old key and add a new one atomically",
  rule:
    `Governed by the \`rotate_key\` rule, or when there is none by both the \`add_key\` and \`revoke_key\` rules. Policy signers naming the old key move to the new key. ${CAPACITY}`,
  body: [RotateKeyRequest, "old key id, new key, proof"],
  ok: [200, "updated record with the rotated key"],
  errors: [400, 404, 409, 412, 413, 500],
}];

/** Routes for keys. */
export function keyRoutes(rc: RegistryContext): OpenAPIHono<RegistryEnv> {
  const app = router();
  for (const spec of MUTATIONS) mountMutation(app, rc, spec);
  return app;
}
