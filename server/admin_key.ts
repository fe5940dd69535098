/**
 * The admin key: from SERVICE_ADMIN_KEY, else generated once and kept in the data dir (0600). On a
 * data dir shared by several instances, the first to start creates it and the others read it.
 */
import { randomHex } from "../protocol/secrets.ts";
import { publishOnce } from "../protocol/fs.ts";

/** Where the admin key came from, for the startup summary (never the key itself). */
export interface AdminKeySource {
  key: string;
  source: "env" | "file" | "generated";
  path?: string;
}

/**
 * Resolves the admin key, generating and storing a 256-bit one on first start. Instances starting
 * at once on one data dir end with one key: each writes its candidate to a file of its own, and
 * only the first to link it at `path` is kept.
 */
export async function resolveAdminKey(
  envKey: string | null,
  path: string,
): Promise<AdminKeySource> {
  if (envKey !== null) return { key: envKey, source: "env" };
  const stored = await readKey(path);
  if (stored !== null) return { key: stored, source: "file", path };
  const key = `adm_${randomHex(32)}`;
  const tmp = `${path}.${randomHex(8)}.tmp`;
  await Deno.writeTextFile(tmp, key + "\n", { mode: 0o600, createNew: true });
  await Deno.chmod(tmp, 0o600);
  if (await publishOnce(tmp, path)) return { key, source: "generated", path };
  const theirs = await readKey(path);
  if (theirs === null) throw new Error(`${path} holds no admin key (fewer than 16 characters)`);
  return { key: theirs, source: "file", path };
}

// The key stored at `path`, or null when there is none (a too-short one counts as none before a
// start generates one; when another instance just published it, it is whole).
async function readKey(path: string): Promise<string | null> {
  try {
    const key = (await Deno.readTextFile(path)).trim();
    return key.length >= 16 ? key : null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}
