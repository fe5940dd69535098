/**
 * An upper bound for verified creates on this machine: a bare `Deno.serve` that does only what any
 * create must, under the same wrk load as Signet (bench/load/mutations.lua). `verify`: read and
 * parse the JSON body, one WebCrypto Ed25519 importKey + verify. `store`: that, then Signet's own
 * stored writes for the bot (`storeBot`: record, key, capability and search index rows) on a copy
 * of the seeded database, group-committed once per turn of the event loop. No validation, JCS,
 * nonce, policy or audit log: Signet does all of these on top. `domain`: the create as the spec
 * requires it, with Signet's own code and nothing around it: the strict JSON read, the body's
 * schema, then the registry's `mutateBot` (proofs, nonce, policy, audit log, stored writes) on a copy
 * of the seeded database taken before Signet's load (so the bodies' nonces, issued by that
 * registry's key, are fresh there); no routing, middleware, limits, logs or connection guard. The
 * bench runs `store` and `domain` right after Signet's create load, with the same bodies (issue 29's
 * goal is a share of `store`; `domain` is the limit for Signet's own create on this stack; see
 * docs/decisions/performance-and-bench.md, "Verified creates: the ceiling on two cores").
 * Usage: deno run -A bench/load/create_ceiling.ts <port> verify|store|domain [database copy]
 */
import { registryModule } from "./registry_code.ts";
import { makeVerifySample, verifyOnce } from "./verify_sample.ts";

const [port, mode, dbPath] = Deno.args;
const sample = await makeVerifySample();

/** Writes one bot; null in `verify` mode. */
const store = mode === "store" ? await openStore(dbPath) : null;
/** Signet's whole create of a request's body, in `domain` mode. */
const create = mode === "domain" ? await openDomain(dbPath) : null;

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

async function openDomain(path: string): Promise<(req: Request) => Promise<Response>> {
  const { openSqliteStore } = await registryModule("db/sqlite/store.ts");
  const { openRegistry } = await registryModule("server/registry/context.ts");
  const { mutateBot } = await registryModule("server/registry/bots.ts");
  const { readStrictJson } = await registryModule("protocol/registry/json.ts");
  const { BotRecord } = await registryModule("protocol/registry/schemas.ts");
  const { setQuiet } = await registryModule("server/log.ts");
  setQuiet(true);
  const rc = await openRegistry(await openSqliteStore(path, { checkpointer: false }));
  const refuse = (error: string) => Response.json({ error }, { status: 400 });
  return async (req) => {
    const read = readStrictJson(await req.text());
    if (!read.ok) return refuse(read.problem);
    if (!BotRecord.safeParse(read.value).success) return refuse("schema");
    try {
      const { bot, record } = await mutateBot(rc, {
        operation: "create_bot",
        botId: String(read.value.bot_id),
        method: req.method,
        path: new URL(req.url).pathname,
        body: read.value,
        ifMatch: null,
      });
      return new Response(record, {
        status: 201,
        headers: { "content-type": "application/json", etag: `"${bot.version}"` },
      });
    } catch (err) {
      return refuse(String((err as Error)?.message ?? err));
    }
  };
}

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  onListen: () => console.error("listening"),
}, async (req) => {
  if (req.method !== "POST") return new Response("{}");
  if (create) return await create(req);
  const body = await req.json();
  if (!(await verifyOnce(sample))) return Response.json({ error: "signature" }, { status: 400 });
  await store?.(body);
  return Response.json({ ok: true }, { status: 201 });
});
