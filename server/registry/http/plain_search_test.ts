/** Which search targets are plain enough to answer ahead of the router (plain_search.ts). */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { plainSearchParams } from "./plain_search.ts";

Deno.test("plain searches: the route's own parameters, once each, nothing to decode", () => {
  assertEquals(plainSearchParams("/v1/search"), {});
  assertEquals(plainSearchParams("/v1/search?"), {});
  assertEquals(plainSearchParams("/v1/search?q=seed-001&status=active&capability=deploy"), {
    q: "seed-001",
    status: "active",
    capability: "deploy",
  });
  assertEquals(plainSearchParams("/v1/search?limit=5&cursor=YWZ0ZXI6eA"), {
    limit: "5",
    cursor: "YWZ0ZXI6eA",
  });
  assertEquals(plainSearchParams("/v1/search?sort=-created&q=ops"), { sort: "-created", q: "ops" });
});

Deno.test("plain searches: anything else is the router's", () => {
  for (
    const target of [
      "/v1/searchx",
      "/v1/search/",
      "/v1/bots/x",
      "/v1/search?q=", // empty values: the router decides (status= is a 400 there)
      "/v1/search?status=",
      "/v1/search?sort=",
      "/v1/search?q",
      "/v1/search?q=a%20b", // encoded
      "/v1/search?q=a+b",
      "/v1/search?q=a&q=b", // repeated: the router refuses it
      "/v1/search?q=a&", // an empty pair
      "/v1/search?foo=1", // not the route's
      "/v1/search?Q=a",
      "/v1/search?q=a#x",
    ]
  ) assertEquals(plainSearchParams(target), null, target);
});
