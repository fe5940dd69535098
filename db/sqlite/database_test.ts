/** The database's statement cache: one statement per SQL text, still usable after an error. */
import { assertEquals, assertThrows } from "../../tests/helpers/assert.ts";
import { openDatabase } from "./database.ts";

Deno.test("prepared statements are cached and survive a failed run", async () => {
  const dir = await Deno.makeTempDir();
  const db = openDatabase(`${dir}/t.db`);
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  const insert = "INSERT INTO t (k, v) VALUES (?, ?)";
  assertEquals(db.prepare(insert) === db.prepare(insert), true);
  db.prepare(insert).run("a", 1);
  assertThrows(() => db.prepare(insert).run("a", 2)); // duplicate key
  db.prepare(insert).run("b", 2);
  const rows = db.prepare("SELECT k, v FROM t ORDER BY k").all() as { k: string; v: number }[];
  assertEquals(rows.map((r) => [r.k, r.v]), [["a", 1], ["b", 2]]);
  db.close();
});
