/** Registry test helpers: key pairs and a client bound to a test server. */
import {
  generateKeyFile,
  type KeyFile,
  publicKeyOf,
  RegistryClient,
  RegistryError,
  type Signer,
  signerFromKeyFile,
} from "../../client/registry.ts";

/** A generated key: its file form, signer and public record entry. */
export interface TestBotKey {
  file: KeyFile;
  signer: Signer;
  pub: ReturnType<typeof publicKeyOf>;
}

/** Generates a key `keyId` (of `botId`, for signing as a controller). */
export async function newKey(keyId: string, botId?: string): Promise<TestBotKey> {
  const file = await generateKeyFile(keyId, { botId });
  return { file, signer: await signerFromKeyFile(file), pub: publicKeyOf(file) };
}

/** The fields of a record's keys a client sends back in an update (no status, no dates). */
export function keyEntries(
  bot: { keys: { key_id: string; algorithm: string; public_key: string; label?: string }[] },
) {
  return bot.keys.map(({ key_id, algorithm, public_key, label }) => ({
    key_id,
    algorithm,
    public_key,
    label,
  }));
}

/** A client for `url`. */
export function client(url: string): RegistryClient {
  return new RegistryClient(url);
}

/**
 * A policy over three signers (name → key id): any one signs an update, two of the three must sign
 * the bot's revocation.
 */
export function twoOfThreeToRevoke(signers: Record<string, string>) {
  return {
    version: 1,
    default_threshold: 1,
    signers: Object.fromEntries(
      Object.entries(signers).map(([name, key]) => [name, { key_id: key }]),
    ),
    rules: [{
      operation: "revoke_bot",
      threshold: 2,
      signers: Object.keys(signers),
      description: "two of three to retire the bot",
    }],
  };
}

/** The status and error message of a refused client call. */
export async function refusal(p: Promise<unknown>): Promise<[number, string]> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    return [err.status, err.message.replace(/^\d+: /, "")];
  }
  throw new Error("expected a refusal, got success");
}
