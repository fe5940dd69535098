/**
 * The layers' import rules (docs/architecture.md): `protocol/` is the bottom layer both sides use,
 * `db/` sits on it, and `server/` and `client/` never import each other. Every relative import of
 * every .ts/.tsx file under the layers (static, `export … from`, dynamic `import("…")` and module
 * URLs `new URL("….ts", import.meta.url)`) is an edge; an edge across a forbidden boundary
 * (FORBIDDEN) fails, and so does any import cycle (Tarjan's strongly connected components).
 * Unit tests live beside their module as `x_test.ts`: they may import across layers and the test
 * helpers (`tests/`, `testing/`), but no other module may import a test or test code.
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(/\/$/, "");
const LAYERS = ["server", "client", "db", "protocol", "ui"];

/**
 * What the modules under each folder may not import: the layers, and inside the server, the hosting
 * domain and the registry know nothing of each other, nor the domain of its transports, nor the
 * generic HTTP layer (the connection guard) of the registry (the server hands it what it needs).
 */
/** The engines behind the store interface (db/store.ts). */
const ENGINES = ["db/sqlite/", "db/postgres/"];

const FORBIDDEN: Record<string, string[]> = {
  "client/": ["server/", ...ENGINES],
  "server/": ["client/"],
  "protocol/": ["server/", "client/", "db/", "ui/"],
  "db/": ["server/", "client/"],
  "server/domain/": ["server/http/", "server/ssh/", "server/registry/", ...ENGINES],
  "server/registry/": ["server/domain/", ...ENGINES],
  "server/http/": ["server/registry/", ...ENGINES],
  // Above db/, only the store interface: no engine's module, SQL or driver type (the exceptions
  // below, by name).
  "server/ssh/": ENGINES,
  "ui/": ENGINES,
};

/**
 * Edges allowed across a rule above, each for a reason: the guard thread reads the embedded file
 * itself (only on SQLite). (server/ops/, backup, restore and `db copy`, works on the engines' own
 * files and tools, and is under no rule above.)
 */
const EXCEPTIONS = new Set([
  "server/registry/http/guard_reads_sqlite.ts -> db/sqlite/registry_bots.ts",
  "server/registry/http/guard_reads_sqlite.ts -> db/sqlite/database.ts",
  "server/registry/http/guard_reads_postgres.ts -> db/postgres/registry_bots.ts",
  "server/registry/http/guard_reads_postgres.ts -> db/postgres/store.ts",
]);

const IMPORT_PATTERNS = [
  /^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/gm,
  /^\s*import\s*["'](\.{1,2}\/[^"']+)["']/gm,
  /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g,
  /\bnew URL\(\s*["'](\.{1,2}\/[^"']+\.tsx?)["']\s*,\s*import\.meta\.url\s*\)/g,
];

/** The relative module specifiers `source` imports. */
export function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const pattern of IMPORT_PATTERNS) {
    for (const m of source.matchAll(pattern)) found.push(m[1]);
  }
  return found;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of Deno.readDirSync(dir)) {
    if (e.name.startsWith(".") || e.name === "generated" || e.name === "node_modules") continue;
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) sourceFiles(path, out);
    else if (/\.tsx?$/.test(e.name)) out.push(path);
  }
  return out;
}

/** A unit test beside its module (Deno's `x_test.ts`). */
export function isTest(path: string): boolean {
  return /_test\.tsx?$/.test(path);
}

/**
 * The import graph of the layers: project-relative path → the project-relative paths it imports;
 * with `tests`, the unit tests beside the modules too.
 */
function importGraph(tests = false): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const layer of LAYERS) {
    for (const file of sourceFiles(`${ROOT}/${layer}`)) {
      if (isTest(file) && !tests) continue;
      const deps = relativeImports(Deno.readTextFileSync(file)).map((spec) =>
        decodeURIComponent(new URL(spec, `file://${file}`).pathname).slice(ROOT.length + 1)
      );
      graph.set(file.slice(ROOT.length + 1), deps);
    }
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one importing itself. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const strong = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strong(v);
  return found;
}

Deno.test("architecture: the import parser sees static, type, dynamic and URL imports", () => {
  const source = [
    `import { a } from "./a.ts";`,
    `import type {\n  B,\n  C,\n} from "../b/c.ts";`,
    `export { d } from "./d.ts";`,
    `import "./side.ts";`,
    `const m = await import("./lazy.ts");`,
    `new Worker(new URL("./worker.ts", import.meta.url));`,
    `import { z } from "zod";`,
  ].join("\n");
  assertEquals(relativeImports(source).sort(), [
    "../b/c.ts",
    "./a.ts",
    "./d.ts",
    "./lazy.ts",
    "./side.ts",
    "./worker.ts",
  ]);
});

Deno.test("architecture: cycle detection finds a cycle and only it", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
    ["e", ["e"]],
  ]);
  assertEquals(cycles(graph), [["a", "b", "c"], ["e"]]);
  assertEquals(cycles(new Map([["a", ["b"]], ["b", []]])), []);
});

Deno.test("architecture: no layer imports one it must not", () => {
  const graph = importGraph();
  assert(
    (graph.get("client/registry.ts") ?? []).includes("protocol/registry/jws.ts"),
    "the graph misses a known import",
  );
  const crossings: string[] = [];
  for (const [file, deps] of graph) {
    for (const [folder, forbidden] of Object.entries(FORBIDDEN)) {
      if (!file.startsWith(folder)) continue;
      for (const dep of deps) {
        const edge = `${file} -> ${dep}`;
        if (forbidden.some((f) => dep.startsWith(f)) && !EXCEPTIONS.has(edge)) crossings.push(edge);
      }
    }
  }
  assertEquals(crossings, []);
});

Deno.test("architecture: no module imports a test or test code; tests beside modules are seen", () => {
  const graph = importGraph(true);
  assert(graph.has("protocol/ssh/sshsig_test.ts"), "the graph misses a known unit test");
  const offenders: string[] = [];
  for (const [file, deps] of graph) {
    if (isTest(file)) continue;
    for (const dep of deps) {
      if (isTest(dep) || dep.startsWith("tests/") || dep.startsWith("testing/")) {
        offenders.push(`${file} -> ${dep}`);
      }
    }
  }
  assertEquals(offenders, []);
  assertEquals(["db/database_test.ts", "db/database.ts", "x_test.tsx"].map(isTest), [
    true,
    false,
    true,
  ]);
});

Deno.test("architecture: every relative import names an existing file", () => {
  const missing: string[] = [];
  for (const [file, deps] of importGraph(true)) {
    for (const dep of deps) {
      try {
        Deno.statSync(`${ROOT}/${dep}`);
      } catch {
        missing.push(`${file} -> ${dep}`);
      }
    }
  }
  assertEquals(missing, []);
});

Deno.test("architecture: the module graph has no cycles", () => {
  assertEquals(cycles(importGraph()), []);
});
