/** The database's statement cache, and giving back its memory at rest. */
import { assert, assertEquals, assertThrows } from "../../tests/helpers/assert.ts";
import { openDatabase, openReadOnlyDatabase, releaseDatabaseMemory } from "./database.ts";

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

/** This process's resident pages of mapped files and shared memory (KiB), from /proc. */
function mappedKib(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const field = (name: string) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, "m"))?.[1]);
  return field("RssFile") + field("RssShmem");
}

Deno.test("releasing a connection's memory unmaps the pages its reads touched; reads still work", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.db`;
  const writer = openDatabase(path);
  writer.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  writer.exec("BEGIN");
  const insert = writer.prepare("INSERT INTO t (k, v) VALUES (?, ?)");
  for (let k = 0; k < 8_000; k++) insert.run(k, "x".repeat(4000)); // about 32 MB
  writer.exec("COMMIT");
  writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const reader = openReadOnlyDatabase(path);
  const sum = () => (reader.prepare("SELECT sum(length(v)) AS n FROM t").get() as { n: number }).n;
  const before = mappedKib();
  assertEquals(sum(), 8_000 * 4000);
  const touched = mappedKib() - before;
  assert(touched > 16 * 1024, `a full read mapped only ${touched} KiB`);
  releaseDatabaseMemory(reader);
  const left = mappedKib() - before;
  assert(left < touched / 4, `still ${left} of ${touched} KiB mapped after the release`);
  assertEquals(sum(), 8_000 * 4000); // mapped again as it reads
  reader.close();
  writer.close();
  await Deno.remove(dir, { recursive: true });
});
