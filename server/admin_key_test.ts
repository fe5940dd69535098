/** The admin key: from the environment, else made once in the data dir, even by several at once. */
import { assertEquals, assertRejects } from "../tests/helpers/assert.ts";
import { resolveAdminKey } from "./admin_key.ts";

Deno.test("admin keys created at once on one path end as one key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-adminkey-" });
  try {
    const path = `${dir}/admin_key`;
    const got = await Promise.all(Array.from({ length: 8 }, () => resolveAdminKey(null, path)));
    assertEquals(new Set(got.map((g) => g.key)).size, 1);
    assertEquals(got.filter((g) => g.source === "generated").length, 1);
    assertEquals((await Deno.readTextFile(path)).trim(), got[0].key);
    assertEquals(Deno.statSync(path).mode! & 0o777, 0o600);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["admin_key"]);
    assertEquals((await resolveAdminKey(null, path)).source, "file");
    assertEquals(await resolveAdminKey("from-the-environment-123", path), {
      key: "from-the-environment-123",
      source: "env",
    });
    await Deno.writeTextFile(path, "short\n");
    await assertRejects(() => resolveAdminKey(null, path), Error, "holds no admin key");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
