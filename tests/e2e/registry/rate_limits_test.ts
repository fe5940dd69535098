/** Registry rate limits on the real server: nonce issuance per IP, writes per IP and per bot. */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { postJson } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest("registry: nonces per IP, writes per bot and per IP get 429 with Retry-After", {
  env: {
    SERVICE_RATE_LIMITS: "on",
    SERVICE_RATE_LIMIT_NONCE_IP: "3/1",
    SERVICE_RATE_LIMIT_REGISTRY_WRITE_BOT: "2/1",
    SERVICE_RATE_LIMIT_REGISTRY_WRITE_IP: "6/1",
  },
}, async (server) => {
  const R = server.registryUrl;
  const nonces: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${R}/v1/nonce`);
    nonces.push(res.status);
    if (res.status === 429) {
      retryAfter = res.headers.get("Retry-After");
      assertEquals(typeof (await res.json()).error, "string");
    } else await res.body?.cancel();
  }
  assertEquals(nonces, [200, 200, 200, 429]);
  assert(retryAfter !== null && Number(retryAfter) >= 1, `Retry-After ${retryAfter}`);

  // Per bot: the third write to one bot is refused before it is even checked.
  const writes: number[] = [];
  for (let i = 0; i < 3; i++) {
    writes.push((await postJson(`${R}/v1/bots/victim-bot/revoke`, {})).status);
  }
  assertEquals(writes, [400, 400, 429]);
  // Creation is limited by the body's bot_id.
  const create = await postJson(`${R}/v1/bots`, { bot_id: "victim-bot" });
  assertEquals(create.status, 429);
  assert(Number(create.headers.get("Retry-After")) >= 1);
  // Per IP: other bots are fresh, but the address runs out after 6 writes in all.
  const others: number[] = [];
  for (let i = 0; i < 3; i++) {
    others.push((await postJson(`${R}/v1/bots/other-${i}/revoke`, {})).status);
  }
  assertEquals(others, [400, 400, 429]);
  // Reads are not limited.
  const read = await fetch(`${R}/v1/bots/victim-bot`);
  await read.body?.cancel();
  assertEquals(read.status, 404);
});
