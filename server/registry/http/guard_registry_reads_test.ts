/** The guard thread's stored-bot reads share a read transaction per event-loop run, never longer. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { openDatabase, transaction } from "../../../db/sqlite/database.ts";
import { saveBot } from "../../../db/sqlite/registry_bots.ts";
import { botWrite } from "../bots.ts";
import type { Bot } from "../../../protocol/registry/bot.ts";
import { applyOperation } from "../record.ts";
import { GuardRegistryReads } from "./guard_registry_reads.ts";
import { openSqliteReads } from "./guard_reads_sqlite.ts";
import type { LocalAnswer } from "../../http/guarded_connection.ts";

/** An answer the SQLite source gives at once (never a promise: it is written in the same turn). */
function now(answer: LocalAnswer | null | Promise<LocalAnswer | null>): LocalAnswer | null {
  if (answer instanceof Promise) throw new Error("the SQLite source answered later");
  return answer;
}

function bot(version: number): Bot {
  const created = applyOperation(
    "create_bot",
    null,
    {
      bot_id: "txn-bot",
      name: "Txn bot",
      keys: [{ key_id: "k1", algorithm: "Ed25519", public_key: "key-1", label: "main" }],
      capabilities: ["deploy"],
    },
    { botId: "txn-bot" },
    { now: "2026-01-01T00:00:00.000Z", seq: 1, logHash: "", approvedBy: [] },
  );
  return { ...created, version };
}

const etag = (bytes: Uint8Array) => /etag: "(\d+)"/.exec(new TextDecoder().decode(bytes))?.[1];
const GET = "GET /v1/bots/txn-bot HTTP/1.1\r\nHost: r\r\n\r\n";

/** A database holding txn-bot at version 1, and the guard's reads of it. */
async function fixture() {
  const dir = await Deno.makeTempDir({ prefix: "signet-guard-reads-" });
  const db = openDatabase(`${dir}/signet.db`);
  transaction(db, () => saveBot(db, botWrite(bot(1))));
  const source = openSqliteReads(`${dir}/signet.db`);
  const reads = new GuardRegistryReads(source);
  const dispose = async () => {
    reads.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { db, reads, source, dispose };
}

Deno.test("guard reads: one read transaction per event-loop run, later runs see later commits", async () => {
  const { db, reads, source, dispose } = await fixture();
  try {
    const first = [now(reads.answer(GET)), now(reads.answer(GET)), now(reads.answer(GET))];
    assertEquals(first.map((a) => etag(a!.bytes)), ["1", "1", "1"]);
    assertEquals(source.stats, { transactions: 1, reads: 3 });
    await new Promise((r) => setTimeout(r, 0));
    // Committed by the writing connection between two runs: the next read must see it.
    transaction(db, () => saveBot(db, botWrite(bot(2))));
    assertEquals(etag(now(reads.answer(GET))!.bytes), "2");
    assertEquals(source.stats, { transactions: 2, reads: 4 });
    await new Promise((r) => setTimeout(r, 0));
    // The read transaction ended with its run: the writer is not held back (a checkpoint can
    // copy everything and restart the log).
    const ckpt = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    assertEquals(Number(ckpt.busy), 0);
  } finally {
    await dispose();
  }
});

Deno.test("guard reads: plain searches answered here, searches the router refuses passed on", async () => {
  const { db, reads, dispose } = await fixture();
  const get = (target: string) => now(reads.answer(`GET ${target} HTTP/1.1\r\nHost: r\r\n\r\n`));
  try {
    const answer = get("/v1/search?q=txn&status=active")!;
    const text = new TextDecoder().decode(answer.bytes);
    const [head, body] = text.split("\r\n\r\n");
    assertEquals(head.split("\r\n")[0], "HTTP/1.1 200 OK");
    assertEquals(JSON.parse(body).results.map((b: Bot) => b.bot_id), ["txn-bot"]);
    assertEquals(answer.path, "/v1/search");
    assertEquals(
      JSON.parse(new TextDecoder().decode(get("/v1/search")!.bytes).split("\r\n\r\n")[1]),
      {
        results: [
          JSON.parse(db.prepare("SELECT record FROM registry_bots").get()!.record as string),
        ],
        next_cursor: null,
      },
    );
    // The router answers these: with its 400s, or after decoding.
    for (const target of ["/v1/search?limit=0", "/v1/search?status=gone", "/v1/search?q=t%78n"]) {
      assertEquals(get(target), null, target);
    }
    assertEquals(
      now(reads.answer("GET /v1/search?q=txn HTTP/1.1\r\nHost: r\r\nExpect: 100-continue\r\n\r\n")),
      null,
    );
  } finally {
    await dispose();
  }
});
