/**
 * Registry records stored before the rules of issue 22: a record holding more than 32 keys may
 * still lose keys and be revoked, and migration 5 gives rules stored without a description the one
 * a replay gives. Both plant the old data in the embedded database file.
 */
import { ON_POSTGRES } from "../../../testing/postgres.ts";
import { assertEquals } from "../../helpers/assert.ts";
import { client, newKey, refusal } from "../../helpers/registry.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import type { Bot } from "../../../protocol/registry/bot.ts";
import { migrate, openDatabase } from "../../../db/sqlite/database.ts";
import { DatabaseSync } from "node:sqlite";

// Plants an over-long record in the embedded database file: SQLite's run only.
Deno.test("a record stored with more than 32 keys may still lose keys and be revoked", {
  ignore: ON_POSTGRES,
}, async () => {
  const keys = await Promise.all(Array.from({ length: 34 }, (_, i) => newKey(`k${i}`)));
  const first = await startTestServer();
  let server: TestServer | undefined;
  try {
    await client(first.registryUrl).createBot(
      { bot_id: "legacy-bot", keys: keys.slice(0, 32).map((k) => k.pub) },
      [keys[0].signer],
    );
  } finally {
    await first.stop();
  }
  try {
    // A 33rd key, as an add-key before the bound was enforced stored it.
    const db = new DatabaseSync(`${first.dataDir}/signet.db`);
    const row = db.prepare("SELECT record FROM registry_bots WHERE bot_id = 'legacy-bot'")
      .get() as { record: string };
    const bot = JSON.parse(row.record) as Bot;
    bot.keys.push({ ...bot.keys[31], key_id: "k32", public_key: keys[32].pub.public_key });
    db.prepare("UPDATE registry_bots SET record = ? WHERE bot_id = 'legacy-bot'")
      .run(JSON.stringify(bot));
    db.close();
    server = await startTestServer({ dataDir: first.dataDir });
    const c = client(server.registryUrl);
    const k0 = [keys[0].signer];
    assertEquals((await c.getBot("legacy-bot")).keys.length, 33);
    assertEquals((await refusal(c.addKey("legacy-bot", keys[33].pub, k0)))[0], 409);
    const removed = await c.removeKey("legacy-bot", "k32", k0);
    assertEquals([removed.keys.length, removed.keys[32].status], [33, "revoked"]);
    assertEquals((await c.revokeBot("legacy-bot", k0)).status, "revoked");
  } finally {
    await server?.stop();
  }
});

Deno.test("migration 5: rules stored without a description get the one a replay gives", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-migration-" });
  const path = `${dir}/signet.db`;
  try {
    const old = new DatabaseSync(path);
    migrate(old, 3);
    const record = (rules: unknown[]) =>
      JSON.stringify({
        bot_id: "legacy",
        name: "Caf\u00e9 \u0001 \u{1F916}",
        policy: { version: 1, default_threshold: 1, signers: {}, rules },
        version: 4,
      });
    const insert = old.prepare(
      "INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, " +
        "updated_at) VALUES (?, 'active', '', ?, 4, '', '')",
    );
    const legacy = [
      { operation: "update", threshold: 1, signers: ["a"] },
      { operation: "revoke_bot", threshold: 2, signers: ["a", "b"], description: "kept" },
    ];
    insert.run("legacy", record(legacy));
    insert.run("current", record([{ ...legacy[0], description: "" }]));
    insert.run("none", record([]));
    /** bot id → stored record. */
    const records = (db: { prepare(sql: string): { all(): unknown[] } }) =>
      new Map(
        (db.prepare("SELECT bot_id, record FROM registry_bots").all() as {
          bot_id: string;
          record: string;
        }[]).map((r) => [r.bot_id, r.record]),
      );
    const before = records(old);
    old.close();
    const db = openDatabase(path);
    const after = records(db);
    db.close();
    // Byte for byte what the server stores (JSON.stringify) for the record with descriptions.
    assertEquals(after.get("legacy"), record([{ ...legacy[0], description: "" }, legacy[1]]));
    assertEquals(after.get("current"), before.get("current"));
    assertEquals(after.get("none"), before.get("none"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
