/** Periodic maintenance removes expired login challenges and expired tokens, and keeps the rest. */
import { assertEquals } from "../tests/helpers/assert.ts";
import { inProcessContext } from "../tests/helpers/in_process.ts";
import { runMaintenance } from "./maintenance.ts";

Deno.test("maintenance deletes expired tokens and keeps live ones", async () => {
  const { ctx, config } = await inProcessContext("signet-maint-");
  try {
    const user = await ctx.store.users.insert("alice", "ssh-ed25519 AAAA");
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const expired = await ctx.store.tokens.insert(
      "a".repeat(64),
      user.id,
      iso(now - 10_000),
      iso(now - 1_000),
    );
    const live = await ctx.store.tokens.insert(
      "b".repeat(64),
      user.id,
      iso(now - 10_000),
      iso(now + 60_000),
    );
    await runMaintenance(ctx, [], now);
    assertEquals(await ctx.store.tokens.findById(expired), undefined);
    assertEquals((await ctx.store.tokens.findById(live))?.id, live);
  } finally {
    await ctx.store.close();
    await Deno.remove(config.dataDir, { recursive: true });
  }
});
