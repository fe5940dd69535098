/**
 * Creates one bot through the registry API with a signed request (the record every seeded bot is
 * cloned from) and prints the record as the server stored it.
 * Usage: deno run -A bench/load/registry_template.ts <registryUrl>
 */
import { registryModule } from "./registry_code.ts";

const [url] = Deno.args;
const { generateKeyFile, publicKeyOf, RegistryClient, signerFromKeyFile } = await registryModule(
  "client/registry.ts",
);
const client = new RegistryClient(url);
const signer = await signerFromKeyFile(await generateKeyFile("k1"));
const botId = "bench-template";
const payload = {
  bot_id: botId,
  name: "Bench template",
  description: "the record seeded bots are cloned from",
  keys: [publicKeyOf(signer, "primary")],
  capabilities: ["deploy"],
};
const body = await client.signed("POST", "/v1/bots", payload, [signer], botId);
const res = await client.raw("POST", "/v1/bots", JSON.stringify(body));
if (res.status !== 201) {
  throw new Error(`template create: ${res.status} ${JSON.stringify(res.body)}`);
}
console.log(await (await fetch(`${url}/v1/bots/${botId}`)).text());
