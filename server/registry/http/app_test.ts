/** The OpenAPI document is generated from the validating schemas and covers the spec's schemas and operations. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { openSqliteStore } from "../../../db/sqlite/store.ts";
import { openRegistry } from "../context.ts";
import { registryApp } from "./app.ts";
import type { Signet } from "../../context.ts";

/** The spec's schema table: name -> [properties, required] (objects only). */
const SPEC_COUNTS: Record<string, [number, number]> = {
  AddKeyRequest: [3, 1],
  Attestation: [7, 4],
  BotRecord: [18, 2],
  Controller: [3, 1],
  Delegation: [2, 1],
  Endpoint: [3, 2],
  ErrorResponse: [1, 1],
  Evidence: [2, 2],
  HealthResponse: [1, 1],
  KeyOrigin: [5, 1],
  KeyRef: [2, 1],
  NonceResponse: [1, 1],
  Owner: [3, 1],
  Policy: [4, 4],
  PolicyRule: [4, 4],
  Proof: [5, 4],
  ProofItem: [5, 4],
  PublicKey: [10, 4],
  PublishAttestationRequest: [2, 2],
  RegistryStatsResponse: [11, 10],
  RemoveKeyRequest: [3, 0],
  RevokeBotRequest: [3, 0],
  RootResponse: [8, 8],
  RotateKeyRequest: [4, 2],
  SearchResponse: [2, 2],
  SignatureRef: [3, 3],
  SignerRef: [1, 1],
  SignerSet: [2, 2],
};

const SPEC_OPERATIONS = [
  "GET /health health",
  "GET /v1 api_root",
  "POST /v1/attestations publish_attestation",
  "POST /v1/bots create_bot",
  "GET /v1/bots/{bot_id} get_bot",
  "PATCH /v1/bots/{bot_id} update_bot",
  "POST /v1/bots/{bot_id}/keys add_key",
  "DELETE /v1/bots/{bot_id}/keys/{key_id} remove_key",
  "POST /v1/bots/{bot_id}/revoke revoke_bot",
  "POST /v1/bots/{bot_id}/rotate rotate_key",
  "GET /v1/nonce get_nonce",
  "GET /v1/search search",
  "GET /v1/stats registry_stats",
];

Deno.test("OpenAPI 3.1 document: spec schemas, property counts and operation ids", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-openapi-" });
  const store = await openSqliteStore(`${dir}/signet.db`, { checkpointer: false });
  try {
    const app = registryApp({ store } as unknown as Signet, await openRegistry(store));
    const res = await app.request("/v1/openapi.json");
    assertEquals(res.status, 200);
    const doc = await res.json();
    assertEquals(doc.openapi, "3.1.0");
    const schemas = doc.components.schemas;
    assertEquals(schemas.BotStatus.enum, ["active", "revoked"]);
    for (const [name, [props, required]] of Object.entries(SPEC_COUNTS)) {
      const s = schemas[name];
      assert(s, `schema ${name} missing`);
      assertEquals(
        [Object.keys(s.properties ?? {}).length, (s.required ?? []).length],
        [props, required],
        name,
      );
    }
    const ops: string[] = [];
    for (
      const [path, item] of Object.entries(
        doc.paths as Record<string, Record<string, { operationId: string }>>,
      )
    ) {
      for (const [method, op] of Object.entries(item)) {
        ops.push(`${method.toUpperCase()} ${path} ${op.operationId}`);
      }
    }
    for (const op of SPEC_OPERATIONS) assert(ops.includes(op), `operation ${op} missing`);
    // The request body of create_bot is the same schema the server validates with.
    const create = doc.paths["/v1/bots"].post;
    assertEquals(create.requestBody.content["application/json"].schema, {
      $ref: "#/components/schemas/BotRecord",
    });
    assertEquals(schemas.BotRecord.additionalProperties, false);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
