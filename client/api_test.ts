/** What the client says when the server cannot be reached. */
import { assertEquals } from "../tests/helpers/assert.ts";
import { freePort } from "../testing/ports.ts";
import { Api, ApiError } from "./api.ts";

Deno.test("a refused connection is named as such, not as a bare fetch failure", async () => {
  const host = `http://127.0.0.1:${freePort()}`;
  let message = "";
  try {
    await new Api(host).call("GET", "/api/me");
  } catch (err) {
    if (err instanceof ApiError) message = err.message;
  }
  assertEquals(message, `cannot reach ${host}: Connection refused`);
});
