/** Group commit: concurrent writes share one transaction, a failing write is undone alone. */
import { deepStrictEqual as assertEquals, rejects } from "node:assert/strict";
import { openDatabase, WriteBatcher } from "./database.ts";

Deno.test("group commit: order, isolation of a failing write, acknowledged only once committed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-batcher-" });
  const path = `${dir}/t.db`;
  const db = openDatabase(path);
  const other = openDatabase(path); // a second connection sees only committed rows
  try {
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
    const writes = new WriteBatcher(db);
    const count = (d = db) =>
      Number((d.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n);
    const insert = (k: string, v: number) => () => {
      db.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v);
      return count();
    };
    const seenByOther: number[] = [];
    const results = await Promise.allSettled([
      writes.run(insert("a", 1)).then((n) => (seenByOther.push(count(other)), n)),
      writes.run(insert("b", 2)),
      // Writes, then fails: its row must not survive, the others must.
      writes.run(() => {
        db.prepare("INSERT INTO t (k, v) VALUES ('c', 3)").run();
        throw new Error("refused");
      }),
      writes.run(insert("a", 9)), // duplicate key: fails on its own
      writes.run(insert("d", 4)),
    ]);
    assertEquals(results.map((r) => r.status === "fulfilled" ? r.value : String(r.reason)), [
      1,
      2,
      "Error: refused",
      results[3].status === "rejected" ? String(results[3].reason) : "should fail",
      3,
    ]);
    assertEquals(results[3].status, "rejected");
    // Resolved only after COMMIT: the other connection already saw all three rows.
    assertEquals(seenByOther, [3]);
    const rows = other.prepare("SELECT k, v FROM t ORDER BY k").all() as { k: string; v: number }[];
    assertEquals(rows.map((r) => [r.k, r.v]), [["a", 1], ["b", 2], ["d", 4]]);
    assertEquals(db.isTransaction, false);

    // A batch without failures, and a write after it.
    assertEquals(await Promise.all([writes.run(insert("e", 5)), writes.run(insert("f", 6))]), [
      4,
      5,
    ]);
    assertEquals(await writes.run(insert("g", 7)), 6);
    await rejects(writes.run(() => db.exec("BEGIN")), /transaction/);
    assertEquals(count(other), 6);
  } finally {
    other.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("group commit: a batch waits for an announced write, but not for long", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-batcher-" });
  const db = openDatabase(`${dir}/t.db`);
  try {
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
    // First a batcher that waits a minute for an announced write, so that "a" waiting for "b" does
    // not depend on how fast this machine reaches the next line; then one with the real bound.
    const patient = new WriteBatcher(db, undefined, 60_000);
    const writes = new WriteBatcher(db);
    const commits: number[] = [];
    const exec = db.exec.bind(db);
    db.exec = (sql: string) => {
      if (sql === "COMMIT") commits.push(commits.length + 1);
      return exec(sql);
    };
    const insert = (k: string) => () => db.prepare("INSERT INTO t (k) VALUES (?)").run(k);
    const settled = new Set<string>();
    const track = (k: string, p: Promise<unknown>) => p.then(() => settled.add(k));

    // "b" is being prepared when "a" is queued: "a" waits for it, and both share one COMMIT.
    const bSubmitted = patient.expect();
    const a = track("a", patient.run(insert("a")));
    await new Promise((r) => setTimeout(r, 20));
    assertEquals(settled.has("a"), false);
    const b = track("b", patient.run(insert("b")));
    bSubmitted();
    await Promise.all([a, b]);
    assertEquals(commits.length, 1);

    // An announced write that never comes holds a batch only a few milliseconds.
    writes.expect();
    const started = performance.now();
    await writes.run(insert("c"));
    const waited = performance.now() - started;
    assertEquals(commits.length, 2);
    // A few ms; the bound only tells "soon" from "never" (a busy machine may stall a timer).
    assertEquals(waited < 5000, true, `waited ${waited} ms`);
    assertEquals(waited >= 2, true, `waited only ${waited} ms`);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("group commit: a batch that changed no row does not report a commit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-batcher-" });
  const db = openDatabase(`${dir}/t.db`);
  try {
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
    let reported = 0;
    const writes = new WriteBatcher(db, () => reported++);
    await writes.run(() => db.prepare("DELETE FROM t WHERE k = 'none'").run());
    assertEquals(reported, 0);
    await writes.run(() => db.prepare("INSERT INTO t (k) VALUES ('a')").run());
    assertEquals(reported, 1);
    await writes.run(() => db.prepare("DELETE FROM t WHERE k = 'a'").run());
    assertEquals(reported, 2);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
