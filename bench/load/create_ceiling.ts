/**
 * An upper bound for verified creates on this machine: a bare `Deno.serve` that does only what any
 * create must, under the same wrk load as Signet (bench/load/mutations.lua). `verify`: read and
 * parse the JSON body, one WebCrypto Ed25519 importKey + verify. `store`: that, then Signet's own
 * stored writes for the bot (`storeBot`: record, key, capability and search index rows) on a copy
 * of the seeded database, group-committed once per turn of the event loop. No validation, JCS,
 * nonce, policy or audit log: Signet does all of these on top. The bench runs `store` right after
 * Signet's create load, with the same bodies (issue 29's goal is a share of it; see
 * docs/decisions/performance-and-bench.md, "Verified creates: the ceiling on two cores").
 * Usage: deno run -A bench/load/create_ceiling.ts <port> verify|store [database copy]
 */
import { registryModule } from "./registry_code.ts";
import { makeVerifySample, verifyOnce } from "./verify_sample.ts";

const [port, mode, dbPath] = Deno.args;
const sample = await makeVerifySample();

/** Writes one bot; null in `verify` mode. */
const store = mode === "store" ? await openStore(dbPath) : null;

async function openStore(path: string): Promise<(body: Record<string, unknown>) => Promise<void>> {
  const { openSqliteStore } = await registryModule("db/sqlite/store.ts");
  const { storeBot } = await registryModule("server/registry/bots.ts");
  const store = await openSqliteStore(path, { checkpointer: false });
  const template = JSON.parse(
    (await store.bots.search({ q: null, status: null, capability: null, after: null, limit: 1 }))[0]
      .record,
  );
  let created = 0;
  // Each write is its own transaction; the store group-commits those submitted in one turn.
  return async (body) => {
    const bot = {
      ...template,
      bot_id: `ceiling-${created++}-${body.bot_id}`,
      name: body.name,
      description: body.description,
    };
    // deno-lint-ignore no-explicit-any
    await store.transaction((tx: any) => storeBot(tx, bot));
  };
}

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  onListen: () => console.error("listening"),
}, async (req) => {
  if (req.method !== "POST") return new Response("{}");
  const body = await req.json();
  if (!(await verifyOnce(sample))) return Response.json({ error: "signature" }, { status: 400 });
  await store?.(body);
  return Response.json({ ok: true }, { status: 201 });
});
