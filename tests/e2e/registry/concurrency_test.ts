/** 20 concurrent signed updates to one bot: all serialized, logged in one order, none lost. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { client, keyEntries, newKey } from "../../helpers/registry.ts";
import { serverTest } from "../../helpers/server.ts";
import { replayLog } from "../../../server/registry/replay.ts";

serverTest(
  "concurrent updates to one bot are serialized without lost updates",
  {},
  async (server) => {
    const c = client(server.registryUrl);
    const k = await newKey("k1");
    const created = await c.createBot({ bot_id: "busy", keys: [k.pub] }, [k.signer]);
    const keys = keyEntries(created);
    const path = "/v1/bots/busy";
    // Sign everything first, then fire all 20 requests at once.
    /** 20 updates of busy signed with k, the `i`th with `fields(i)`. */
    const signedUpdates = (fields: (i: number) => Record<string, unknown>) =>
      Promise.all(
        Array.from(
          { length: 20 },
          (_, i) =>
            c.signed("PATCH", path, { bot_id: "busy", keys, ...fields(i) }, [k.signer], "busy"),
        ),
      );
    const bodies = await signedUpdates((i) => ({
      capabilities: [`cap-${i}`],
      description: `writer ${i}`,
    }));
    const results = await Promise.all(
      bodies.map((b) => c.raw<{ version: number }>("PATCH", path, JSON.stringify(b))),
    );
    assertEquals(results.map((r) => r.status), Array(20).fill(200));
    assertEquals(
      results.map((r) => r.body.version).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 2),
    );

    const log = await c.log("busy");
    assertEquals(log.length, 21);
    assertEquals(log.map((e) => e.version), Array.from({ length: 21 }, (_, i) => i + 1));
    const final = await c.getBot("busy");
    const last = JSON.parse(log[20].body);
    assertEquals(final.version, 21);
    assertEquals(final.description, last.description);
    assertEquals(final.capabilities, last.capabilities);
    const replay = await replayLog(await c.log());
    assertEquals(replay.problem, null);
    assertEquals(replay.bots.get("busy"), final);

    // With If-Match on the same version, exactly one of 20 wins; the others get 412.
    const guarded = await signedUpdates((i) => ({ description: `guarded ${i}` }));
    const outcomes = await Promise.all(
      guarded.map((b) => c.raw("PATCH", path, JSON.stringify(b), { "If-Match": '"21"' })),
    );
    const statuses = outcomes.map((r) => r.status).sort();
    assertEquals(statuses, [200, ...Array(19).fill(412)]);
    assertEquals((await c.getBot("busy")).version, 22);
  },
);
