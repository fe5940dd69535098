/**
 * One configuration per side: only server/config.ts and client/env.ts read the environment.
 * main.ts (which sets SERVICE_DATA_DIR's from-source default before the server config is read),
 * scripts/, bench/, tests/ and the unit tests beside the modules (`x_test.ts`) are outside this
 * rule: they start processes, they are not them.
 */
import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url);
const ALLOWED = new Set(["server/config.ts", "client/env.ts"]);

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(new URL(dir, ROOT))];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return; // e.g. no protocol/ yet
    throw err;
  }
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

Deno.test("only server/config.ts and client/env.ts read Deno.env", async () => {
  const readers: string[] = [];
  for (const dir of ["server", "client", "db", "protocol"]) {
    for await (const path of sourceFiles(dir)) {
      if (ALLOWED.has(path) || /_test\.tsx?$/.test(path)) continue; // tests start processes
      const text = await Deno.readTextFile(new URL(path, ROOT));
      if (/Deno\s*\.\s*env\b|\benv\s*\.\s*(get|toObject)\s*\(/.test(text)) readers.push(path);
    }
  }
  assertEquals(readers, []);
});
