/**
 * Loads `count` bots into a Signet database through the registry's own storage function
 * (`storeBot`), cloned from a record the running server created: the bench needs 100,000 bots in
 * seconds, not the minutes that 100,000 signed POSTs take.
 * Usage: deno run -A bench/load/seed_registry.ts <database file or postgres:// URL> <count> <template.json>
 */
import { registryModule } from "./registry_code.ts";
import { SEED_WORDS, seedBotId } from "./seed_names.ts";

const { storeBot } = await registryModule("server/registry/bots.ts");
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

const [dbPath, countArg, templatePath] = Deno.args;
const count = Number(countArg);
const template = JSON.parse(await Deno.readTextFile(templatePath)) as Bot;
const postgres = /^postgres(ql)?:\/\//.test(dbPath);
const store = await openStore({
  databaseUrl: postgres ? dbPath : null,
  sqlitePath: dbPath,
});
const word = (i: number, salt: number) =>
  SEED_WORDS[(i * 7919 + salt * 104729) % SEED_WORDS.length];
const CAPS = ["deploy", "review", "triage", "build", "release", "chat", "monitor", "index"];
const BATCH = 2000;
for (let start = 0; start < count; start += BATCH) {
  // deno-lint-ignore no-explicit-any
  await store.transaction(async (tx: any) => {
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
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
      await storeBot(tx, bot);
    }
  });
}
await store.close();
console.log(JSON.stringify({ seeded: count }));
