/**
 * The registry on two instances sharing one PostgreSQL database: a nonce issued by one is
 * accepted once by the other and refused as a replay on both; signed updates of one bot split
 * over both make one record and one audit chain that verifies.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { clusterTest } from "../../helpers/cluster.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { replayLog } from "../../../server/registry/replay.ts";

clusterTest(
  "two instances: nonces across them, one bot written through both, one audit chain",
  { names: ["a", "b"] },
  async (cluster, t) => {
    const [a, b] = cluster.instances.map((s) => client(s.registryUrl));
    const k = await newKey("k1");
    const created = await a.createBot({ bot_id: "busy", keys: [k.pub] }, [k.signer]);
    const keys = created.keys.map(({ key_id, algorithm, public_key, label }) => ({
      key_id,
      algorithm,
      public_key,
      label,
    }));
    const path = "/v1/bots/busy";

    await t.step("a nonce from a is accepted once by b, then refused on both", async () => {
      const body = await a.signed("PATCH", path, { bot_id: "busy", keys, description: "x" }, [
        k.signer,
      ], "busy");
      const text = JSON.stringify(body);
      const first = await b.raw<{ version: number }>("PATCH", path, text);
      assertEquals([first.status, first.body.version], [200, 2]);
      for (const [name, c] of [["b", b], ["a", a]] as const) {
        const again = await c.raw<{ error: string }>("PATCH", path, text);
        assertEquals(again.status, 400, `replay on ${name}`);
        assertEquals(/nonce has already been used/.test(again.body.error), true);
      }
      // The same replay sent to both at once: neither takes it.
      const both = await Promise.all([a, b].map((c) => c.raw("PATCH", path, text)));
      assertEquals(both.map((r) => r.status), [400, 400]);
    });

    await t.step("20 signed updates at once, split over both: one chain", async () => {
      const bodies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).signed(
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
          (i % 2 ? b : a).raw<{ version: number }>("PATCH", path, JSON.stringify(body))
        ),
      );
      assertEquals(results.map((r) => r.status), Array(20).fill(200));
      assertEquals(
        results.map((r) => r.body.version).sort((x, y) => x - y),
        Array.from({ length: 20 }, (_, i) => i + 3),
      );
      const [logA, logB] = await Promise.all([a.log(), b.log()]);
      assertEquals(logA, logB, "both instances show one log");
      assertEquals(logA.length, 22);
      assertEquals(logA.map((e) => e.seq), Array.from({ length: 22 }, (_, i) => i + 1));
      const replay = await replayLog(logA);
      assertEquals(replay.problem, null);
      const [onA, onB] = await Promise.all([a.getBot("busy"), b.getBot("busy")]);
      assertEquals(onA, onB);
      assertEquals(onA.version, 22);
      assertEquals(replay.bots.get("busy"), onA);
    });
  },
);
