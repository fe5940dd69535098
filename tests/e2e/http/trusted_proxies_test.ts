/**
 * SERVICE_TRUSTED_PROXIES: behind a trusted reverse proxy, rate limits and the per-address
 * connection cap see the client named by X-Forwarded-For; from anyone else the header is ignored.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { RawHttp, statusFrom } from "../../helpers/raw_http.ts";
import { serverTest } from "../../helpers/server.ts";
import { forwardedClient } from "../../../server/http/client_address.ts";
import { normalizeIp } from "../../../server/ip.ts";

Deno.test("forwardedClient: the rightmost untrusted hop, only from trusted peers", () => {
  const trusted = new Set(["127.0.0.1", "10.0.0.2"]);
  const cases: [string, string | null, string][] = [
    ["127.0.0.1", "203.0.113.5", "203.0.113.5"],
    ["127.0.0.1", null, "127.0.0.1"],
    ["192.0.2.9", "203.0.113.5", "192.0.2.9"], // an untrusted peer cannot claim an address
    ["127.0.0.1", "198.51.100.1, 203.0.113.5", "203.0.113.5"], // the client's own claim is left
    ["127.0.0.1", "198.51.100.1, 203.0.113.5, 10.0.0.2", "203.0.113.5"], // through two proxies
    ["127.0.0.1", "10.0.0.2", "10.0.0.2"], // every hop trusted: the leftmost
    ["127.0.0.1", "203.0.113.5, not-an-ip", "127.0.0.1"], // garbage: nothing left of it counts
    ["127.0.0.1", "::ffff:203.0.113.5", "203.0.113.5"],
    ["::ffff:127.0.0.1", "2001:DB8::1", "2001:db8::1"],
  ];
  for (const [peer, header, want] of cases) {
    assertEquals(forwardedClient(peer, header, trusted), want, `${peer} + ${header}`);
  }
  assertEquals(normalizeIp("010.0.0.1"), "10.0.0.1");
  assertEquals(normalizeIp("256.0.0.1"), null);
  assertEquals(normalizeIp("example.com"), null);
});

serverTest("trusted proxies: limits key on the forwarded client; others' headers are ignored", {
  env: {
    SERVICE_TRUSTED_PROXIES: "127.0.0.1",
    SERVICE_HTTP_MAX_CONNECTIONS_PER_IP: "2",
    SERVICE_RATE_LIMITS: "on",
    SERVICE_RATE_LIMIT_NONCE_IP: "2/1",
  },
}, async (server, t) => {
  const registry = Number(new URL(server.registryUrl).port);
  const nonce = (from: string, forwardedFor?: string) =>
    statusFrom(
      from,
      registry,
      "/v1/nonce",
      forwardedFor ? { "X-Forwarded-For": forwardedFor } : {},
    );
  await t.step("through the proxy, each forwarded client has its own bucket", async () => {
    assertEquals(await nonce("127.0.0.1", "203.0.113.5"), 200);
    assertEquals(await nonce("127.0.0.1", "203.0.113.5"), 200);
    assertEquals(await nonce("127.0.0.1", "203.0.113.5"), 429);
    assertEquals(await nonce("127.0.0.1", "203.0.113.6"), 200);
    // A client claiming an address in its own header still lands in its real bucket.
    assertEquals(await nonce("127.0.0.1", "203.0.113.6, 203.0.113.5"), 429);
  });

  await t.step("from an untrusted address the header changes nothing", async () => {
    assertEquals(await nonce("127.0.0.2", "203.0.113.7"), 200);
    assertEquals(await nonce("127.0.0.2", "203.0.113.8"), 200);
    assertEquals(await nonce("127.0.0.2", "203.0.113.9"), 429);
  });

  await t.step("the proxy is exempt from the per-address connection cap", async () => {
    const held: RawHttp[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const c = await RawHttp.open(server.httpPort);
        held.push(c);
        await c.send("GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n");
        assertEquals((await c.response()).status, 200, `connection ${i + 1}`);
      }
    } finally {
      for (const c of held) c.close();
    }
  });
});
