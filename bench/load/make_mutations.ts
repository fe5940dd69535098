/**
 * Pre-signs `count` create_bot mutations for the load generator, each with its own fresh key and a
 * nonce fetched from the server (as a real client does), one `<path>\t<json body>` line each.
 * Usage: deno run -A bench/load/make_mutations.ts <registryUrl> <count> <outFile> <prefix>
 */
import { registryModule } from "./registry_code.ts";
import { signedCreate } from "./signed_create.ts";

const { generateKeyFile, signerFromKeyFile } = await registryModule("client/registry.ts");

const [url, countArg, outFile, prefix] = Deno.args;
const count = Number(countArg);
const lines: string[] = new Array(count);
let next = 0;
async function worker() {
  while (next < count) {
    const i = next++;
    const botId = `${prefix}-${i}`;
    const res = await fetch(`${url}/v1/nonce`);
    if (res.status !== 200) throw new Error(`nonce: ${res.status} ${await res.text()}`);
    const { nonce } = await res.json() as { nonce: string };
    const signer = await signerFromKeyFile(await generateKeyFile("k1"));
    const body = await signedCreate(botId, `Load bot ${i}`, signer, nonce);
    lines[i] = `/v1/bots\t${JSON.stringify(body)}`;
  }
}
await Promise.all(Array.from({ length: 16 }, worker));
await Deno.writeTextFile(outFile, lines.join("\n") + "\n");
console.log(JSON.stringify({ bodies: count }));
