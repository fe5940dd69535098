/** The bench measures the product and shares launch code with the tests only through testing/. */
import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Every .ts file under `dir` (relative to the repository), recursively. */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(`${ROOT}${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...tsFiles(path));
    else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

/** The module specifiers of static and dynamic imports and re-exports in `source`. */
function specifiers(source: string): string[] {
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
  return [...source.matchAll(re)].map((m) => m[1]);
}

/** The repository-relative path `spec` resolves to from `file`, or null for a bare specifier. */
function resolve(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  return new URL(spec, `file:///${file}`).pathname.slice(1);
}

Deno.test("bench/ and testing/ import nothing from tests/", () => {
  const offenders: string[] = [];
  // Their own unit tests (`x_test.ts`) may use the test helpers, like every test.
  const files = [...tsFiles("bench"), ...tsFiles("testing")].filter((f) => !f.endsWith("_test.ts"));
  for (const file of files) {
    for (const spec of specifiers(Deno.readTextFileSync(`${ROOT}${file}`))) {
      const target = resolve(file, spec);
      if (target?.startsWith("tests/")) offenders.push(`${file} imports ${spec}`);
    }
  }
  assertEquals(offenders, []);
  // The walk saw the bench's server start-up and the shared launcher, so a rename cannot empty it.
  assertEquals(files.includes("bench/signet.ts") && files.includes("testing/launch.ts"), true);
});

Deno.test("the import scan sees a relative import into tests/", () => {
  const source =
    'import { x } from "../tests/helpers/server.ts";\nconst m = await import("../tests/y.ts");';
  const found = specifiers(source).map((s) => resolve("bench/a.ts", s));
  assertEquals(found, ["tests/helpers/server.ts", "tests/y.ts"]);
});
