import { assertEquals } from "../../tests/helpers/assert.ts";
import { methodNotAllowed, methodsAt } from "./allowed_methods.ts";

const routes = [
  { method: "ALL", path: "/v1/*" },
  { method: "GET", path: "/v1/bots/:bot_id" },
  { method: "PATCH", path: "/v1/bots/:bot_id" },
  { method: "POST", path: "/v1/bots" },
  { method: "DELETE", path: "/v1/bots/:bot_id/keys/:key_id" },
  { method: "GET", path: "/v1/openapi.json" },
];

Deno.test("the methods at a path come from the routes whose pattern matches it", () => {
  const at = methodsAt(routes);
  assertEquals(at("/v1/bots/alpha"), ["GET", "HEAD", "PATCH"]);
  assertEquals(at("/v1/bots"), ["POST"]);
  assertEquals(at("/v1/bots/alpha/keys/k1"), ["DELETE"]);
  assertEquals(at("/v1/openapi.json"), ["GET", "HEAD"]);
  // A parameter is one segment; a dot in a pattern is a dot; middleware is no route.
  assertEquals(at("/v1/bots/alpha/extra"), []);
  assertEquals(at("/v1/openapiXjson"), []);
  assertEquals(at("/v1/anything"), []);
});

Deno.test("a 405 names the method, the path and what it takes, in the body and in Allow", () => {
  assertEquals(methodNotAllowed("DELETE", "/v1/bots/a", ["GET", "HEAD", "PATCH"]), {
    body: { error: "DELETE is not allowed on /v1/bots/a: it takes GET, HEAD, PATCH" },
    headers: { Allow: "GET, HEAD, PATCH" },
  });
});
