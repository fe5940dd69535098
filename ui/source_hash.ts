/**
 * The hash of everything the UI bundle is built from: every file under ui/ except ui/generated/
 * (the sources, the CSS and ui/build.ts itself) and the preact packages deno.lock resolves.
 * `deno task build:ui` writes it into ui/generated/assets.ts; a test compares it with the sources
 * so the committed bundle cannot fall behind them (docs/decisions/ui.md, "The UI bundle is committed").
 */

/** Paths under ui/, relative to the repository root, sorted; ui/generated/ left out. */
async function uiFiles(root: URL, dir = "ui"): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${dir}/`, root))) {
    const path = `${dir}/${entry.name}`;
    if (path === "ui/generated") continue;
    if (entry.isDirectory) out.push(...await uiFiles(root, path));
    else if (entry.isFile) out.push(path);
  }
  return out.sort();
}

/** `name@version` keys of deno.lock's npm section for preact and @preact/*, sorted. */
async function preactPackages(root: URL): Promise<string[]> {
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", root)));
  return Object.keys(lock.npm ?? {}).filter((k) => /^(preact|@preact\/[^@]+)@/.test(k)).sort();
}

/** Hex SHA-256 over the UI's inputs, read from the repository at `root`. */
export async function uiSourceHash(root: URL): Promise<string> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const path of await uiFiles(root)) {
    const bytes = await Deno.readFile(new URL(path, root));
    parts.push(enc.encode(`${path}\0${bytes.length}\0`), bytes);
  }
  parts.push(enc.encode(`deno.lock\0${(await preactPackages(root)).join("\n")}`));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The hash ui/generated/assets.ts was built from, or null when it is missing or has none. */
export async function builtSourceHash(root: URL): Promise<string | null> {
  try {
    const text = await Deno.readTextFile(new URL("ui/generated/assets.ts", root));
    return /export const UI_SOURCE_HASH = "([0-9a-f]{64})";/.exec(text)?.[1] ?? null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}
