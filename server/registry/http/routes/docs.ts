/** The OpenAPI document (generated from the validating schemas) and the embedded documentation. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import project from "../../../../deno.json" with { type: "json" };
import registryDoc from "../../../../docs/registry.md" with { type: "text" };
import protocolDoc from "../../../../docs/registry-protocol.md" with { type: "text" };
import { jsonResponse, type RegistryEnv, router } from "../router.ts";
import type { Context } from "hono";
import { htmlPage } from "../../../http/ssr_page.ts";
import { wantsHtml } from "../../../http/ui_static.ts";
import { apiDocPage, markdownDocPage } from "../docs_html.ts";

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

/**
 * `/v1/openapi.json`, `/v1/docs` (field reference) and `/v1/docs/protocol` (signing protocol),
 * Markdown, or HTML to a browser; `/v1/docs/api`, the OpenAPI document as an HTML page.
 */
export function docRoutes(app: OpenAPIHono<RegistryEnv>): OpenAPIHono<RegistryEnv> {
  const docs = router();
  let cached: unknown = null;
  docs.openapi(openapi, (c) => c.json((cached ??= openApiDocument(app)) as never, 200));
  // Browsers (Accept names text/html) get the document rendered; every other client the Markdown.
  const markdown = (path: string, text: string) => (c: Context) =>
    wantsHtml(c) ? htmlPage("registry", markdownDocPage(path, text)) : new Response(text, {
      headers: { "Content-Type": "text/markdown; charset=utf-8", "Vary": "Accept" },
    });
  docs.get("/v1/docs", markdown("/v1/docs", registryDoc));
  docs.get("/v1/docs/protocol", markdown("/v1/docs/protocol", protocolDoc));
  docs.get("/v1/docs/api", () => htmlPage("registry", apiDocPage(cached ??= openApiDocument(app))));
  return docs;
}
