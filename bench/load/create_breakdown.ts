/**
 * Where a verified create_bot spends its CPU, measured in one process with no sockets, on a copy of
 * the seeded database: the registry's whole handler, its request front (routing, middleware, body
 * parse and schema validation: a body without proof, refused before any work of the mutation),
 * the mutation alone (verify + policy + writes), the proof verification alone, and the stored
 * writes alone. Each step runs `count` creates, 16 at a time (as the load does, so group commit
 * batches them), after as many to warm up.
 * Usage: deno run -A bench/load/create_breakdown.ts <database> <count>
 * Prints one JSON line: microseconds per create of each step.
 */
import { registryModule } from "./registry_code.ts";
import { signedCreate } from "./signed_create.ts";

const [dbPath, countArg] = Deno.args;
const count = Number(countArg);
const { openSqliteStore } = await registryModule("db/sqlite/store.ts");
const { openRegistry } = await registryModule("server/registry/context.ts");
const { registryHandler } = await registryModule("server/registry/http/app.ts");
const { mutateBot, storeBot } = await registryModule("server/registry/bots.ts");
const { splitProofs, verifyProofs } = await registryModule("server/registry/proofs.ts");
const { RateLimiter } = await registryModule("server/ratelimit.ts");
const { setQuiet } = await registryModule("server/log.ts");
const { generateKeyFile, signerFromKeyFile } = await registryModule("client/registry.ts");

setQuiet(true);
const store = await openSqliteStore(dbPath, { checkpointer: false });
const rc = await openRegistry(store);
const handler = registryHandler({ store, limiter: new RateLimiter(false), config: {} }, rc);
const info = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 },
  completed: Promise.resolve(),
};
const signer = await signerFromKeyFile(await generateKeyFile("k1"));
let serial = 0;

/** `n` signed create bodies with fresh nonces from the registry itself. */
async function bodies(n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const { nonce } = await (await handler(new Request("http://registry/v1/nonce"), info)).json();
    const botId = `breakdown-${serial++}`;
    const signed = await signedCreate(botId, `Breakdown bot ${serial}`, signer, nonce);
    out.push(JSON.stringify(signed));
  }
  return out;
}

/** Microseconds per body of `step` over fresh bodies, 16 in flight, after a warm-up round. */
async function measure(step: (body: string) => Promise<unknown>): Promise<number> {
  const run = async (list: string[]) => {
    await Promise.all(Array.from({ length: 16 }, async (_, w) => {
      for (let i = w; i < list.length; i += 16) await step(list[i]);
    }));
  };
  await run(await bodies(count));
  const list = await bodies(count);
  const started = performance.now();
  await run(list);
  return (performance.now() - started) * 1000 / count;
}

const post = (body: string) =>
  new Request("http://registry/v1/bots", {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
  });

const handlerUs = await measure(async (body) => {
  const res = await handler(post(body), info);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
});
const frontUs = await measure(async (body) => {
  const { proof: _proof, ...unsigned } = JSON.parse(body);
  const res = await handler(post(JSON.stringify(unsigned)), info);
  if (res.status !== 400) throw new Error(`unsigned create: ${res.status}`);
  await res.arrayBuffer();
});
const mutationUs = await measure(async (text) => {
  const body = JSON.parse(text);
  await mutateBot(rc, {
    operation: "create_bot",
    botId: body.bot_id,
    method: "POST",
    path: "/v1/bots",
    body,
  });
});
const verifyUs = await measure(async (text) => {
  const body = JSON.parse(text);
  const target = {
    bot_id: body.bot_id,
    keys: body.keys.map((k: object) => ({ ...k, status: "active" })),
  };
  await verifyProofs(splitProofs(body), {
    method: "POST",
    path: "/v1/bots",
    target,
    ownKeysOnly: true,
    lookup: () => undefined,
    nonceKey: rc.nonceKey,
    nowMs: Date.now(),
  });
});
// The stored writes of a create (record, key, capability and search index rows), batched 16 to a
// transaction as group commit does; the audit log and nonce rows come on top in a real create.
const template = JSON.parse(
  await (await handler(new Request("http://registry/v1/bots/breakdown-0"), info)).text(),
);
const storeUs = await measure((text) => {
  const bot = { ...template, bot_id: JSON.parse(text).bot_id };
  // deno-lint-ignore no-explicit-any
  return store.transaction((tx: any) => storeBot(tx, bot));
});
await store.close();
console.log(JSON.stringify({ handlerUs, frontUs, mutationUs, verifyUs, storeUs }));
