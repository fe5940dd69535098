/**
 * The bot registry on two instances sharing one database: concurrent signed updates of one bot
 * through both make one record and one audit chain; a nonce issued by one instance is accepted
 * once by the other and refused everywhere after.
 */
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { balancedTest } from "../../helpers/cluster.ts";
import { client, keyEntries, newKey } from "../../helpers/registry.ts";
import { replayLog } from "../../../server/registry/replay.ts";

balancedTest("registry: one record and one audit chain whichever instance writes", {}, async (
  cluster,
  t,
) => {
  const [a, b] = cluster.instances;
  const [ca, cb, lb] = [client(a.registryUrl), client(b.registryUrl), client(cluster.registryUrl)];
  const k = await newKey("k1");
  const created = await lb.createBot({ bot_id: "busy", keys: [k.pub] }, [k.signer]);
  const keys = keyEntries(created);
  const path = "/v1/bots/busy";

  await t.step(
    "20 concurrent signed updates over both instances: one coherent record",
    async () => {
      // Each body signed over a nonce from one instance, and sent to the other: all 20 at once.
      const bodies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? cb : ca).signed(
            "PATCH",
            path,
            {
              bot_id: "busy",
              keys,
              capabilities: [`cap-${i}`],
              description: `writer ${i}`,
            },
            [k.signer],
            "busy",
          )),
      );
      const results = await Promise.all(
        bodies.map((body, i) =>
          (i % 2 ? ca : cb).raw<{ version: number }>("PATCH", path, JSON.stringify(body))
        ),
      );
      assertEquals(
        results.map((r) => r.status),
        Array(20).fill(200),
      );
      assertEquals(
        results.map((r) => r.body.version).sort((x, y) => x - y),
        Array.from({ length: 20 }, (_, i) => i + 2),
      );
      const log = await lb.log("busy");
      assertEquals(log.map((e) => e.version), Array.from({ length: 21 }, (_, i) => i + 1));
      const last = JSON.parse(log[20].body);
      for (const c of [ca, cb, lb, lb]) {
        const bot = await c.getBot("busy");
        assertEquals([bot.version, bot.description, bot.capabilities], [
          21,
          last.description,
          last.capabilities,
        ]);
      }
      // The whole log, read through either instance, is one chain that replays to the record.
      for (const c of [ca, cb]) {
        const replay = await replayLog(await c.log());
        assertEquals(replay.problem, null);
        assertEquals(replay.bots.get("busy"), await c.getBot("busy"));
      }
    },
  );

  await t.step(
    "a nonce issued by A is accepted once by B, then refused on A, B and the balancer",
    async () => {
      const body = await ca.signed(
        "PATCH",
        path,
        {
          bot_id: "busy",
          keys,
          description: "across",
        },
        [k.signer],
        "busy",
      );
      const first = await cb.raw("PATCH", path, JSON.stringify(body));
      assertEquals(first.status, 200);
      for (const c of [ca, cb, lb, lb]) {
        const again = await c.raw<{ error: string }>("PATCH", path, JSON.stringify(body));
        assertEquals(again.status, 400);
        assertStringIncludes(again.body.error, "nonce has already been used");
      }
      assertEquals((await lb.getBot("busy")).version, 22);
    },
  );

  await t.step(
    "20 racing uses of one nonce over both instances: exactly one succeeds",
    async () => {
      const body = JSON.stringify(
        await cb.signed("PATCH", path, { bot_id: "busy", keys, description: "raced" }, [
          k.signer,
        ], "busy"),
      );
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => [ca, cb][i % 2].raw("PATCH", path, body)),
      );
      const statuses = results.map((r) => r.status).sort();
      assertEquals(statuses, [200, ...Array(19).fill(400)]);
      assertEquals((await lb.getBot("busy")).version, 23);
    },
  );
});
