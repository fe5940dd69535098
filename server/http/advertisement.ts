/**
 * Protocol v2 capability advertisements of `git upload-pack`, cached per repository. In v2 the
 * advertisement lists capabilities only, never refs, so it changes only with git's configuration:
 * each entry is keyed by the repository's `config` and the server's global `.gitconfig` (mtime and
 * size) and is dropped when either changes. A hit saves one git process per clone, fetch and
 * ls-remote; the bytes served are always ones git itself produced.
 */
import { gitProgram } from "../domain/git.ts";

const MAX_ENTRIES = 10_000;
const cache = new Map<string, { stamp: string; bytes: Uint8Array }>();

async function fileStamp(path: string): Promise<string> {
  try {
    const info = await Deno.stat(path);
    return `${info.mtime?.getTime() ?? 0}:${info.size}`;
  } catch {
    return "-";
  }
}

/**
 * The v2 advertisement of the repository at `dir` for a request whose validated git env is
 * `env` (its HOME holding the server's global `.gitconfig`); null when git failed (the caller then
 * answers as for any other request).
 */
export async function uploadPackV2Advertisement(
  dir: string,
  env: Record<string, string>,
): Promise<Uint8Array | null> {
  const key = `${dir}\0${env.GIT_PROTOCOL ?? ""}`;
  const stamp = `${await fileStamp(`${dir}/config`)}|${await fileStamp(`${env.HOME}/.gitconfig`)}`;
  const hit = cache.get(key);
  if (hit && hit.stamp === stamp) return hit.bytes;
  const out = await new Deno.Command(gitProgram("git-upload-pack"), {
    args: ["--stateless-rpc", "--advertise-refs", dir],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!out.success) return null;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, { stamp, bytes: out.stdout });
  return out.stdout;
}
