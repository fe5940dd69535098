/** A search page built from records as bytes is byte for byte the page built from them as text. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { BotHit } from "../../db/registry_bots.ts";
import { searchPage, searchPageBytes } from "./search.ts";

const utf8 = new TextEncoder();

/** Rows of text records, and the same rows with each record as its UTF-8 bytes. */
function rows(n: number, withKeys: boolean): { text: BotHit[]; bytes: ReturnType<typeof asBytes> } {
  const text = Array.from({ length: n }, (_, i): BotHit => {
    const botId = `bot-${i}`;
    // Non-ASCII text: the bytes' lengths differ from the strings'.
    const record = JSON.stringify({ bot_id: botId, name: `Bötchen ${i} ✓`, description: "日本" });
    return withKeys ? { botId, record, key: `2026-0${i % 9 + 1}-01` } : { botId, record };
  });
  return { text, bytes: asBytes(text) };
}

function asBytes(hits: BotHit[]) {
  return hits.map((h) => ({ ...h, record: utf8.encode(h.record) }));
}

Deno.test("search page: records as bytes give the text page's bytes, with or without a next page", () => {
  const cases = [
    [0, 20, "bot_id"],
    [1, 20, "bot_id"],
    [5, 20, "-created"],
    [21, 20, "bot_id"],
    [4, 3, "-created"],
    [4, 3, "name"],
  ] as const;
  for (const [n, limit, sort] of cases) {
    const { text, bytes } = rows(n, sort !== "bot_id");
    const plan = { limit, sort };
    const expected = utf8.encode(searchPage(text, plan));
    assertEquals(searchPageBytes(bytes, plan), expected, `${n} rows, limit ${limit}, ${sort}`);
    assertEquals(searchPageBytes(text, plan), expected, `${n} text rows, limit ${limit}, ${sort}`);
    const page = JSON.parse(new TextDecoder().decode(expected));
    assertEquals(page.results.length, Math.min(n, limit));
    assertEquals(page.next_cursor === null, n <= limit);
  }
});
