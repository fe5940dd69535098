/**
 * Every search plan (trigram index, ordered scan, capability walk; in every sort, the candidates
 * sorted or the sort's index walked) returns what a plain filter and sort do; cursors are checked.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { openSqliteStore } from "../../db/sqlite/store.ts";
import { openRegistry } from "./context.ts";
import { storeBot } from "./bots.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import { applyOperation } from "./record.ts";
import { encodeCursor, encodeSortCursor, searchBots } from "./search.ts";
import { BOT_SORTS, type BotSort } from "../../protocol/registry/search_sort.ts";
import { DomainError } from "../../protocol/errors.ts";

/** `a` before `b` in `sort` (keys and ids compared as the engines do, the ids all ASCII). */
function compare(a: Bot, b: Bot, sort: BotSort): number {
  const key = (x: Bot) => {
    const by = sort.replace(/^-/, "");
    return by === "name"
      ? (x.name || x.bot_id).replace(/[A-Z]/g, (c) => c.toLowerCase())
      : by === "created"
      ? x.created_at!
      : by === "updated"
      ? x.updated_at!
      : x.bot_id;
  };
  const order = (x: string, y: string) => x < y ? -1 : x > y ? 1 : 0;
  return (sort.startsWith("-") ? -1 : 1) *
    (order(key(a), key(b)) || order(a.bot_id, b.bot_id));
}

const WORDS = ["amber", "coral", "jade", "onyx"];
const CAPS = ["deploy", "review", "triage"];

function makeBot(i: number): Bot {
  const id = `plan-${String(i).padStart(4, "0")}`;
  const bot = applyOperation(
    "create_bot",
    null,
    {
      bot_id: id,
      name: `${WORDS[i % 4]} bot ${i}`,
      description: i % 97 === 0
        ? "a Rare_Word% here"
        : i % 89 === 0
        ? "über, amber jade"
        : `works with ${WORDS[(i >> 2) % 4]}`,
      keys: [{ key_id: "k1", algorithm: "Ed25519", public_key: `key-${i}`, label: "main" }],
      capabilities: [CAPS[i % 3], ...(i % 5 === 0 ? [CAPS[(i + 1) % 3]] : [])],
    },
    { botId: id },
    // Many bots share a creation time (bot_id breaks the tie).
    {
      now: new Date(Date.UTC(2026, 0, 1, 0, (i * 37) % 500)).toISOString(),
      seq: i,
      logHash: "",
      approvedBy: [],
    },
  );
  return i % 7 === 0 ? { ...bot, status: "revoked" } : bot;
}

Deno.test("search: index, scan and capability plans agree with a plain filter, page by page", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-search-plans-" });
  const store = await openSqliteStore(`${dir}/signet.db`, { checkpointer: false });
  try {
    const rc = await openRegistry(store);
    // Shuffled insertion, so rowid order is not bot_id order.
    const bots = Array.from({ length: 1200 }, (_, i) => makeBot((i * 7) % 1200));
    await store.transaction(async (tx) => {
      for (const b of bots) await storeBot(tx, b);
    });
    const sorted = [...bots].sort((a, b) => a.bot_id < b.bot_id ? -1 : 1);
    const queries: { q?: string; capability?: string; status?: string }[] = [];
    // "bot" and "amber" are broad (more hits than the index probe takes); the others selective.
    // "jade jade" and "über jade" (non-ASCII: the whole term probes the index) have every trigram
    // in some bots' text, yet no bot contains them.
    for (
      const q of [
        undefined,
        "bot",
        "amber",
        "AMBER",
        "bot 11",
        "rare_word%",
        "an",
        "d%",
        "_",
        "zzz",
        "jade jade",
        "über jade",
        "über, am",
      ]
    ) {
      for (const capability of [undefined, "review"]) {
        for (const status of [undefined, "active", "revoked"]) {
          queries.push({ q, capability, status });
        }
      }
    }
    for (const query of queries.flatMap((q) => BOT_SORTS.map((sort) => ({ ...q, sort })))) {
      for (let round = 0; round < 2; round++) { // the second round uses the broad-term memory
        const want = [...sorted].sort((a, b) => compare(a, b, query.sort)).filter((b) =>
          (!query.q ||
            `${b.bot_id}\n${b.name}\n${b.description}`.toLowerCase().includes(
              query.q.toLowerCase(),
            )) &&
          (!query.capability || b.capabilities.includes(query.capability)) &&
          (!query.status || b.status === query.status)
        ).map((b) => b.bot_id);
        const got: string[] = [];
        let cursor: string | undefined;
        do {
          const page = JSON.parse(
            await searchBots(rc, { ...query, limit: "100", cursor }),
          ) as { results: Bot[]; next_cursor: string | null };
          got.push(...page.results.map((b) => b.bot_id));
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        assertEquals(got, want, JSON.stringify(query));
      }
    }
    const one = JSON.parse(await searchBots(rc, { q: "plan-0001", limit: "1" }));
    assertEquals(one.results, [sorted[1]]);
    // A cursor is valid in its own sort only; a bad sort is refused.
    const refused = async (params: Record<string, string>) => {
      try {
        await searchBots(rc, params);
      } catch (err) {
        if (err instanceof DomainError && err.kind === "invalid") return err.message;
        throw err;
      }
      throw new Error(`accepted ${JSON.stringify(params)}`);
    };
    const byName = JSON.parse(await searchBots(rc, { sort: "name", limit: "2" }));
    assertEquals(
      await refused({ sort: "-name", cursor: byName.next_cursor }),
      "cursor belongs to another sort than -name: start from the first page",
    );
    assertEquals(
      await refused({ cursor: byName.next_cursor }),
      "cursor belongs to another sort than bot_id: start from the first page",
    );
    assertEquals(
      await refused({ sort: "name", cursor: encodeCursor("plan-0001") }),
      "cursor belongs to another sort than name: start from the first page",
    );
    for (
      const cursor of [
        "x",
        "%%%",
        btoa("[]"),
        encodeSortCursor("name", "k".repeat(401), "plan-0001"),
        encodeSortCursor("name", "key", "Not An Id"),
      ]
    ) {
      assertEquals(await refused({ sort: "name", cursor }), "cursor is not valid", cursor);
    }
    assertEquals(
      await refused({ sort: "size" }),
      "sort must be one of bot_id, name, -name, created, -created, updated, -updated",
    );
    // An empty sort is the default.
    assertEquals(
      await searchBots(rc, { sort: "", limit: "3" }),
      await searchBots(rc, { limit: "3" }),
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
