/** The WAL checkpointer copies committed pages into the database file from its own thread. */
import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import { openDatabase } from "./database.ts";
import { onDemandCheckpointer, startCheckpointer } from "./checkpointer.ts";

Deno.test("WAL checkpointer: pages reach the database file without the writer checkpointing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-checkpointer-" });
  const path = `${dir}/t.db`;
  const db = openDatabase(path);
  try {
    // The writer never checkpoints here: only the worker can move pages into the file.
    db.exec("PRAGMA wal_autocheckpoint = 0");
    db.exec("CREATE TABLE t (v BLOB)");
    const before = (await Deno.stat(path)).size;
    const checkpointer = await startCheckpointer(path, { everyMs: 20 });
    db.exec("BEGIN");
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    for (let i = 0; i < 512; i++) insert.run(new Uint8Array(4096).fill(i % 256));
    db.exec("COMMIT");
    let after = before;
    const deadline = Date.now() + 20_000; // seconds of margin for a busy machine
    while (after < before + 2_000_000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      after = (await Deno.stat(path)).size;
    }
    await checkpointer.stop();
    assert(after >= before + 2_000_000, `database file ${before} -> ${after} bytes`);
    assertEquals(
      (db.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n,
      512,
    );
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WAL checkpointer: refuses to start on a database it cannot open", async () => {
  await assertRejects(
    () => startCheckpointer("/nonexistent-signet-dir/t.db"),
    Error,
    "the WAL checkpointer did not start",
  );
});

Deno.test("WAL checkpointer on demand: no thread until a write, none again once writes stop", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-checkpointer-" });
  const path = `${dir}/t.db`;
  const db = openDatabase(path);
  const failures: string[] = [];
  const checkpointer = onDemandCheckpointer(path, {
    idleMs: 200,
    onFailure: (m) => failures.push(m),
  });
  try {
    assertEquals(checkpointer.running, false);
    checkpointer.wrote();
    assertEquals(checkpointer.running, true);
    // It retires once 200 ms pass without a write (seconds of margin for a busy machine).
    const deadline = Date.now() + 20_000;
    while (checkpointer.running && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assertEquals(checkpointer.running, false);
    checkpointer.wrote();
    assertEquals(checkpointer.running, true, "the next write starts it again");
    await checkpointer.stop();
    assertEquals(checkpointer.running, false);
    checkpointer.wrote();
    assertEquals(checkpointer.running, false, "stopped for good");
    assertEquals(failures, []);
  } finally {
    await checkpointer.stop();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
