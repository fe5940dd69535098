/** The OpenAPI document (generated from the validating schemas) and the embedded documentation. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import project from "../../../../deno.json" with { type: "json" };
import registryDoc from "../../../../docs/registry.md" with { type: "text" };
import protocolDoc from "../../../../docs/registry-protocol.md" with { type: "text" };
import { jsonResponse, type RegistryEnv, router } from "../router.ts";

const openapi = createRoute({
  method: "get",
  path: "/v1/openapi.json",
  operationId: "openapi",
  summary: "This OpenAPI 3.1 document",
  responses: { 200: jsonResponse(z.record(z.string(), z.unknown()), "OpenAPI 3.1 document") },
});

/** Builds the OpenAPI 3.1 document of `app`. */
export function openApiDocument(app: OpenAPIHono<RegistryEnv>) {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Signet bot identity registry",
      version: project.version,
      description:
        "Public-read, proof-authenticated registry of bot identities. Mutations carry Ed25519 detached JWS proofs (RFC 7797) over the JCS (RFC 8785) of the body; see /v1/docs/protocol.",
    },
  });
}

/** `/v1/openapi.json`, `/v1/docs` (field reference) and `/v1/docs/protocol` (signing protocol). */
export function docRoutes(app: OpenAPIHono<RegistryEnv>): OpenAPIHono<RegistryEnv> {
  const docs = router();
  let cached: unknown = null;
  docs.openapi(openapi, (c) => c.json((cached ??= openApiDocument(app)) as never, 200));
  const markdown = (text: string) => () =>
    new Response(text, { headers: { "Content-Type": "text/markdown; charset=utf-8" } });
  docs.get("/v1/docs", markdown(registryDoc));
  docs.get("/v1/docs/protocol", markdown(protocolDoc));
  return docs;
}
