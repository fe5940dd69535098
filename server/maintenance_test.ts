/** Periodic maintenance removes expired login challenges and expired tokens, and keeps the rest. */
import { assertEquals } from "../tests/helpers/assert.ts";
import { inProcessContext } from "../tests/helpers/in_process.ts";
import { runMaintenance } from "./maintenance.ts";
import { insertToken } from "../db/tokens.ts";

Deno.test("maintenance deletes expired tokens and keeps live ones", async () => {
  const { ctx, config } = await inProcessContext("signet-maint-");
  try {
    ctx.db.prepare(
      "INSERT INTO users (username, public_key, created_at) VALUES ('alice', 'ssh-ed25519 AAAA', ?)",
    ).run(new Date().toISOString());
    const userId = Number(
      (ctx.db.prepare("SELECT id FROM users WHERE username = 'alice'").get() as { id: number }).id,
    );
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    insertToken(ctx.db, "a".repeat(64), userId, iso(now - 10_000), iso(now - 1_000));
    insertToken(ctx.db, "b".repeat(64), userId, iso(now - 10_000), iso(now + 60_000));
    runMaintenance(ctx, [], now);
    const left = ctx.db.prepare("SELECT token_hash FROM tokens").all() as { token_hash: string }[];
    assertEquals(left.map((t) => t.token_hash), ["b".repeat(64)]);
  } finally {
    ctx.db.close();
    await Deno.remove(config.dataDir, { recursive: true });
  }
});
