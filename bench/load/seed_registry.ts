/**
 * Loads `count` bots into a Signet database, cloned from a record the running server created: the
 * bench needs 100,000 bots (1,000,000 in the scale mode) in seconds, not the hours signed POSTs
 * would take. Bot `i` (from `start`, default 0) gets the id `seedBotId(i)` and the same name,
 * description, capabilities on either engine.
 *
 * SQLite goes through the registry's own storage function (`storeBot`), 2,000 bots a transaction.
 * PostgreSQL, by default, through a bench-only bulk path: the same rows `storeBot` writes (the
 * registry's own `botWrite` computes them, search_text included), sent as multi-row INSERTs of
 * 2,000 bots each straight through postgres.js into the tables of db/postgres/migrations/, then
 * `ANALYZE`, as autovacuum would have done after that many writes (for large seeds,
 * `--rebuild-index` drops the search index first and builds it again at the end). Row by row through `storeBot`
 * (`--store`) costs one round trip per statement, five per bot. No product code uses the bulk path.
 * Usage: deno run -A bench/load/seed_registry.ts <database file or postgres:// URL> <count>
 *   <template.json> [start] [--store] [--rebuild-index]
 */
import postgres from "postgres";
import { registryModule } from "./registry_code.ts";
import { SEED_WORDS, seedBotId } from "./seed_names.ts";

const { storeBot, botWrite } = await registryModule("server/registry/bots.ts");
const { openStore } = await registryModule("db/open.ts");
const { encodeBase64Url } = await registryModule("protocol/registry/base64url.ts");

/** The fields of a stored bot record the seeder changes. */
interface Bot {
  bot_id: string;
  name: string;
  description: string;
  capabilities: string[];
  keys: { public_key: string }[];
}

/** The parts of the registry's BotWrite (db/registry_bots.ts) the bulk path spreads over tables. */
interface Write {
  botId: string;
  keys: { keyId: string; publicKey: string; status: string }[];
  capabilities: string[];
  controllers: string[];
}

const flags = Deno.args.filter((a) => a.startsWith("--"));
const [dbPath, countArg, templatePath, startArg] = Deno.args.filter((a) => !a.startsWith("--"));
const count = Number(countArg);
const first = Number(startArg ?? 0);
const template = JSON.parse(await Deno.readTextFile(templatePath)) as Bot;
const isPostgres = /^postgres(ql)?:\/\//.test(dbPath);
const word = (i: number, salt: number) =>
  SEED_WORDS[(i * 7919 + salt * 104729) % SEED_WORDS.length];
const CAPS = ["deploy", "review", "triage", "build", "release", "chat", "monitor", "index"];
const BATCH = 2000;

/** Seeded bot number `i`. */
function seedBot(i: number): Bot {
  const bot = structuredClone(template);
  bot.bot_id = seedBotId(i);
  bot.name = `${word(i, 1)} ${word(i, 2)} bot ${i}`;
  bot.description = `A ${word(i, 3)} assistant for ${word(i, 4)} and ${word(i, 5)} work`;
  bot.capabilities = [CAPS[i % CAPS.length], CAPS[(i >> 3) % CAPS.length]].filter((c, k, a) =>
    a.indexOf(c) === k
  ).sort();
  bot.keys = bot.keys.map((k) => ({
    ...k,
    public_key: encodeBase64Url(crypto.getRandomValues(new Uint8Array(32))),
  }));
  return bot;
}

const end = first + count;
if (isPostgres && !flags.includes("--store")) {
  // The schema is the server's: it has started on this database (and migrated it) already.
  const sql = postgres(dbPath, { max: 1, onnotice: () => {} });
  // With --rebuild-index, a large seed drops the search index and builds it again afterwards, from its definition as
  // the migration made it: one sorted build instead of a million incremental GIN inserts.
  const [index] = flags.includes("--rebuild-index")
    ? await sql.unsafe(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'registry_bots_search'",
    )
    : [];
  if (index) await sql.unsafe("DROP INDEX registry_bots_search");
  try {
    for (let start = first; start < end; start += BATCH) {
      const writes: Write[] = [];
      for (let i = start; i < Math.min(end, start + BATCH); i++) writes.push(botWrite(seedBot(i)));
      const json = (rows: unknown[]) => JSON.stringify(rows);
      await sql.begin(async (tx) => {
        await tx.unsafe(
          `INSERT INTO registry_bots
             (bot_id, status, search_text, record, version, created_at, updated_at)
           SELECT b."botId", b.status, b."searchText", b.record, b.version, b."createdAt",
             b."updatedAt"
           FROM jsonb_to_recordset($1::text::jsonb) AS b("botId" text, status text,
             "searchText" text, record text, version bigint, "createdAt" text, "updatedAt" text)`,
          [json(writes)],
        );
        const keys = writes.flatMap((w) => w.keys.map((k) => ({ botId: w.botId, ...k })));
        await tx.unsafe(
          `INSERT INTO registry_keys (bot_id, key_id, public_key, status)
           SELECT k."botId", k."keyId", k."publicKey", k.status
           FROM jsonb_to_recordset($1::text::jsonb)
             AS k("botId" text, "keyId" text, "publicKey" text, status text)`,
          [json(keys)],
        );
        const caps = writes.flatMap((w) =>
          w.capabilities.map((c) => ({ botId: w.botId, capability: c }))
        );
        // Each capability row carries its bot's status and search text (PostgreSQL migration 5).
        await tx.unsafe(
          `INSERT INTO registry_capabilities (capability, bot_id, status, search_text)
           SELECT c.capability, c."botId", b.status, b.search_text
           FROM jsonb_to_recordset($1::text::jsonb) AS c("botId" text, capability text)
           JOIN registry_bots b ON b.bot_id = c."botId"`,
          [json(caps)],
        );
        const controllers = writes.flatMap((w) =>
          w.controllers.map((c) => ({ botId: w.botId, controller: c }))
        );
        if (controllers.length) {
          await tx.unsafe(
            `INSERT INTO registry_controllers (bot_id, controller_id)
             SELECT c."botId", c.controller
             FROM jsonb_to_recordset($1::text::jsonb) AS c("botId" text, controller text)`,
            [json(controllers)],
          );
        }
      });
    }
    if (index) await sql.unsafe(index.indexdef);
    // What autovacuum does shortly after a bulk insert (its insert threshold): statistics, and the
    // visibility map that index-only scans read. The bench measures a registry in its steady state,
    // not the minute after a million rows arrived at once.
    await sql.unsafe("VACUUM (ANALYZE)");
  } finally {
    await sql.end();
  }
} else {
  const store = await openStore({
    databaseUrl: isPostgres ? dbPath : null,
    sqlitePath: dbPath,
  });
  for (let start = first; start < end; start += BATCH) {
    // deno-lint-ignore no-explicit-any
    await store.transaction(async (tx: any) => {
      for (let i = start; i < Math.min(end, start + BATCH); i++) await storeBot(tx, seedBot(i));
    });
  }
  await store.close();
}
console.log(JSON.stringify({ seeded: count, from: first }));
