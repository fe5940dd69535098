/** The admin key: from SERVICE_ADMIN_KEY, else generated once and kept in the data dir (0600). */
import { randomHex } from "../protocol/secrets.ts";

/** Where the admin key came from, for the startup summary (never the key itself). */
export interface AdminKeySource {
  key: string;
  source: "env" | "file" | "generated";
  path?: string;
}

/** Resolves the admin key, generating and storing a 256-bit one on first start. */
export async function resolveAdminKey(
  envKey: string | null,
  path: string,
): Promise<AdminKeySource> {
  if (envKey !== null) return { key: envKey, source: "env" };
  try {
    const key = (await Deno.readTextFile(path)).trim();
    if (key.length >= 16) return { key, source: "file", path };
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const key = `adm_${randomHex(32)}`;
  await Deno.writeTextFile(path, key + "\n", { mode: 0o600, createNew: true });
  await Deno.chmod(path, 0o600);
  return { key, source: "generated", path };
}
