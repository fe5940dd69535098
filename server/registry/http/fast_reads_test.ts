/** The hot GET path answers exactly as the routed app does: status, body bytes, headers, metrics. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { openSqliteStore } from "../../../db/sqlite/store.ts";
import { registryApp, registryHandler } from "./app.ts";
import { openRegistry } from "../context.ts";
import { storeBot } from "../bots.ts";
import { applyOperation } from "../record.ts";
import { httpRequests } from "../../metrics.ts";
import { RateLimiter } from "../../ratelimit.ts";
import type { Signet } from "../../context.ts";

const INFO = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 },
} as Deno.ServeHandlerInfo;

async function snapshot(res: Response) {
  const headers = [...res.headers].filter(([k]) => k !== "date");
  return { status: res.status, headers, body: await res.text() };
}

Deno.test("GET /v1/bots/{id}: the fast path and the routed app give the same response", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-fast-reads-" });
  const store = await openSqliteStore(`${dir}/signet.db`, { checkpointer: false });
  try {
    const ctx = { store, limiter: new RateLimiter(false) } as unknown as Signet;
    const rc = await openRegistry(store);
    const bot = applyOperation(
      "create_bot",
      null,
      {
        bot_id: "fast-bot",
        name: "Fast bot \u00e9\u{1F916}",
        description: 'quotes " and \\ and </script>',
        keys: [{ key_id: "k1", algorithm: "Ed25519", public_key: "A".repeat(43), label: "main" }],
        capabilities: ["deploy"],
      },
      { botId: "fast-bot" },
      {
        now: "2026-01-01T00:00:00.000Z",
        seq: 1,
        logHash: "0".repeat(64),
        approvedBy: [{ key: "fast-bot#k1" }],
      },
    );
    await store.transaction((tx) => storeBot(tx, { ...bot, version: 3 }));
    const app = registryApp(ctx, rc);
    const fast = registryHandler(ctx, rc);
    const routed = (path: string, method = "GET") =>
      app.fetch(new Request(`http://registry.test${path}`, { method }), INFO);
    const served = (path: string, method = "GET") =>
      fast(new Request(`http://registry.test${path}`, { method }), INFO);

    const key = '{app="registry",method="GET",route="/v1/bots/:bot_id",status="200"}';
    const count = () => httpRequests.values.get(key) ?? 0;
    for (
      const path of [
        "/v1/bots/fast-bot",
        "/v1/bots/fast-bot?x=1",
        "/v1/bots/fast%2Dbot",
        "/v1/bots/missing",
        "/v1/bots/Fast-Bot",
        "/v1/bots/fast-bot/",
        "/v1/bots/",
      ]
    ) {
      const before = count();
      const a = await snapshot(await routed(path));
      const routedCounted = count() - before;
      const b = await snapshot(await served(path));
      assertEquals(b, a, path);
      assertEquals(count() - before, 2 * routedCounted, `${path}: counted alike`);
    }
    const ok = await snapshot(await served("/v1/bots/fast-bot"));
    assertEquals(ok.status, 200);
    assertEquals(JSON.parse(ok.body), { ...bot, version: 3 });
    assertEquals(new Map(ok.headers).get("etag"), '"3"');
    assertEquals(
      await snapshot(await served("/v1/bots/fast-bot", "HEAD")),
      await snapshot(await routed("/v1/bots/fast-bot", "HEAD")),
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
