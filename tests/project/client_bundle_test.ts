/**
 * The committed client bundle (client/generated/signet_client.js), which git runs as the
 * credential helper from source (client/self.ts), is what its sources build today: a change to
 * anything the client commands import must come with `deno task build:cli`.
 */
import { assert } from "../helpers/assert.ts";
import { buildClientBundle } from "../../client/build.ts";
import { CLIENT_BUNDLE_PATH } from "../../client/self.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("client/generated/signet_client.js is built from the current client sources", async () => {
  const committed = await Deno.readTextFile(new URL(CLIENT_BUNDLE_PATH, ROOT)).catch(() => null);
  assert(committed !== null, `${CLIENT_BUNDLE_PATH} is missing: run deno task build:cli`);
  assert(
    committed === await buildClientBundle(ROOT),
    `${CLIENT_BUNDLE_PATH} differs from what its sources build: run deno task build:cli and ` +
      `commit ${CLIENT_BUNDLE_PATH}`,
  );
});
