/**
 * The state of a bare repository's refs, read from its files: what a cached answer that depends on
 * the refs is keyed on and checked against, so that a push through any process (another instance
 * sharing the repositories, or git run by hand) is seen at once, with no message between them.
 */
import { sha256Hex } from "../../protocol/secrets.ts";

/**
 * A digest of the refs of the bare repository at `dir` (files backend): `HEAD`, `packed-refs` and
 * every loose ref under `refs/` (their contents, not their times: each read opens the file, which
 * on NFS revalidates it). Lock files of ref updates under way are skipped: until git renames a
 * lock over its ref, the ref holds its old value. Costs one read per ref file.
 */
export async function refState(dir: string): Promise<string> {
  const loose: string[] = [];
  await walk(`${dir}/refs`, "refs", loose);
  loose.sort();
  const names = ["HEAD", "packed-refs", ...loose];
  const texts = await Promise.all(names.map((name) => contents(`${dir}/${name}`)));
  return await sha256Hex(names.map((name, i) => `${name}\0${texts[i]}`).join("\0\0"));
}

/**
 * Whether the bare repository at `dir` has any ref, loose or packed (unreadable parts count as
 * none).
 */
export async function hasRefs(dir: string): Promise<boolean> {
  const loose: string[] = [];
  await walk(`${dir}/refs`, "refs", loose).catch(() => {});
  if (loose.length > 0) return true;
  const packed = await contents(`${dir}/packed-refs`).catch(() => "");
  return /^[0-9a-f]{40,64} /m.test(packed);
}

/** Loose ref files below `path` (named `name` from the repository), locks excepted. */
async function walk(path: string, name: string, out: string[]): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  const below: Promise<void>[] = [];
  for (const e of entries) {
    if (e.isDirectory) below.push(walk(`${path}/${e.name}`, `${name}/${e.name}`, out));
    else if (e.isFile && !e.name.endsWith(".lock")) out.push(`${name}/${e.name}`);
  }
  await Promise.all(below);
}

/** The file's text, or `-` when it does not exist (a ref deleted meanwhile, no packed-refs). */
async function contents(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "-";
    throw err;
  }
}
