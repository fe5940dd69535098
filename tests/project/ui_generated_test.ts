/**
 * The committed UI bundle (ui/generated/assets.ts) was built from the sources as they are: the
 * server starts without a bundler, so a change under ui/ must come with `deno task build:ui`.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { builtSourceHash, uiSourceHash } from "../../ui/source_hash.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("ui/generated/assets.ts is built from the current ui/ sources", async () => {
  const built = await builtSourceHash(ROOT);
  assert(built !== null, "ui/generated/assets.ts is missing: run deno task build:ui");
  assertEquals(
    built,
    await uiSourceHash(ROOT),
    "ui/generated/assets.ts is older than the sources under ui/: run deno task build:ui and " +
      "commit ui/generated/assets.ts",
  );
});

Deno.test("the UI source hash changes with any source file, and ignores ui/generated/", async () => {
  const copy = await Deno.makeTempDir({ prefix: "signet-ui-hash-" });
  const root = new URL(`file://${copy}/`);
  await Deno.copyFile(new URL("deno.lock", ROOT), new URL("deno.lock", root));
  const copyDir = async (rel: string) => {
    await Deno.mkdir(new URL(rel, root), { recursive: true });
    for await (const e of Deno.readDir(new URL(rel, ROOT))) {
      if (e.isDirectory) await copyDir(`${rel}${e.name}/`);
      else await Deno.copyFile(new URL(`${rel}${e.name}`, ROOT), new URL(`${rel}${e.name}`, root));
    }
  };
  await copyDir("ui/");
  const before = await uiSourceHash(root);
  assertEquals(before, await uiSourceHash(ROOT));
  await Deno.writeTextFile(new URL("ui/generated/extra.ts", root), "// not a source\n");
  assertEquals(await uiSourceHash(root), before);
  await Deno.writeTextFile(new URL("ui/common/base.css", root), "\n", { append: true });
  assert(await uiSourceHash(root) !== before, "a changed CSS file must change the hash");
  await Deno.remove(copy, { recursive: true });
});
