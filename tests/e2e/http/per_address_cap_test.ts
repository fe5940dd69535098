/** HTTP: one address may hold at most SERVICE_HTTP_MAX_CONNECTIONS_PER_IP connections per listener. */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { RawHttp, statusFrom } from "../../helpers/raw_http.ts";
import { serverTest } from "../../helpers/server.ts";

const GET = "GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n";

serverTest(
  "http: connections beyond the per-address cap get 429 and close; freed ones are reusable",
  { env: { SERVICE_HTTP_MAX_CONNECTIONS_PER_IP: "3" } },
  async (server, t) => {
    const port = server.httpPort;
    const held: RawHttp[] = [];
    try {
      await t.step("three keep-alive connections from 127.0.0.1 are served", async () => {
        for (let i = 0; i < 3; i++) {
          const c = await RawHttp.open(port);
          held.push(c);
          await c.send(GET);
          assertEquals((await c.response()).status, 200);
        }
      });

      await t.step("the fourth gets 429 with a JSON error, and is closed", async () => {
        const c = await RawHttp.open(port);
        await c.send(GET);
        const res = await c.response();
        assertEquals(res.status, 429);
        assertEquals(JSON.parse(res.body), {
          error: "too many open connections from 127.0.0.1 (limit 3)",
        });
        assertStringIncludes(res.headers.toLowerCase(), "retry-after: 1");
        assert((await c.closedWithin(10_000)) !== null, "the refused connection stayed open");
        c.close();
      });

      await t.step("another address and the other listener count their own", async () => {
        assertEquals(await statusFrom("127.0.0.2", port, "/api/health"), 200);
        assertEquals(
          await statusFrom("127.0.0.1", Number(new URL(server.registryUrl).port), "/v1/stats"),
          200,
        );
      });

      await t.step("a closed connection frees its place", async () => {
        held.pop()!.close();
        let status = 0;
        const deadline = Date.now() + 20_000;
        while (status !== 200 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
          status = await statusFrom("127.0.0.1", port, "/api/health");
        }
        assertEquals(status, 200);
      });

      await t.step("refusals are counted in the metrics", async () => {
        const text = await (await fetch(`${server.httpUrl}/metrics`, {
          headers: { authorization: `Bearer ${server.adminKey}` },
        })).text();
        assert(
          /signet_http_connections_closed_total\{reason="per_address_limit"\} [1-9]/.test(text),
          text,
        );
      });
    } finally {
      for (const c of held) c.close();
    }
  },
);
