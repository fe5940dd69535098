/**
 * What `deno run main.ts <client command>` prepares before it runs anything: the modules main.ts
 * reaches through code imports, literal dynamic imports included (deno resolves those at start
 * too). The server and its storage must not be among them: the credential helper starts on every
 * `git push` (on_demand.ts, docs/decisions/client-cli.md).
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url);

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string } }[];
}

/** The modules `entry` reaches through code (not type-only) imports, static or dynamic. */
async function codeGraph(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", "deno.json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map<string, InfoModule>(
    (info.modules as InfoModule[]).map((m) => [m.specifier, m]),
  );
  const seen = new Set<string>();
  const stack: string[] = [...info.roots];
  while (stack.length) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.code?.specifier) stack.push(dep.code.specifier);
    }
  }
  return seen;
}

/** The modules of `graph` inside this checkout, as paths relative to its root. */
function checkoutPaths(graph: Set<string>): string[] {
  return [...graph].filter((s) => s.startsWith(ROOT.href)).map((s) => s.slice(ROOT.href.length));
}

Deno.test("a client command's start prepares no server module, npm package or node: module", async () => {
  const graph = await codeGraph("main.ts");
  const local = checkoutPaths(graph);
  assert(local.includes("client/credential_helper.ts"), local.join("\n"));
  assertEquals(local.filter((path) => /^(server|db|ui)\//.test(path)), []);
  // Loading any npm package starts Deno's npm resolution; node:crypto alone once cost ~40 ms.
  assertEquals([...graph].filter((s) => /^(npm|node):/.test(s)), []);
});

Deno.test("every module compile.ts names for `deno compile --include` exists", async () => {
  const source = await Deno.readTextFile(new URL("compile.ts", ROOT));
  const named = [...source.matchAll(/"--include",\s*"([^"]+)"/g)].map((m) => m[1]);
  assert(named.length >= 3, source);
  const { ON_DEMAND_MODULES } = await import("../../on_demand.ts");
  const missing: string[] = [];
  for (const path of [...named, ...Object.values(ON_DEMAND_MODULES)]) {
    if (!await Deno.stat(new URL(path, ROOT)).catch(() => null)) missing.push(path);
  }
  assertEquals(missing, []);
});

Deno.test("the client bundle's entry prepares no server module, npm package or node: module", async () => {
  const graph = await codeGraph("client/cli/run.ts");
  const local = checkoutPaths(graph);
  assert(local.includes("client/credential_helper.ts"), local.join("\n"));
  assertEquals(local.filter((path) => !/^(client|protocol)\//.test(path)), []);
  assertEquals([...graph].filter((s) => !s.startsWith(ROOT.href)), []);
});
