/** The create_bot body the bench's mutation loads send: one key, signed as a real client signs. */
import { registryModule } from "./registry_code.ts";

const { publicKeyOf, signBody } = await registryModule("client/registry.ts");

/** A create_bot body for `botId` named `name`, signed by `signer` (the bot's only key) with `nonce`. */
export function signedCreate(
  botId: string,
  name: string,
  // deno-lint-ignore no-explicit-any
  signer: any,
  nonce: string,
): Promise<Record<string, unknown>> {
  const payload = {
    bot_id: botId,
    name,
    description: "created by the bench's mutation load",
    keys: [publicKeyOf(signer, "primary")],
    capabilities: ["bench"],
  };
  return signBody(payload, {
    method: "POST",
    path: "/v1/bots",
    nonce,
    signers: [signer],
    targetBot: botId,
  });
}
