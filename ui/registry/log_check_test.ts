/**
 * The browser's log check: its JCS equals the registry's (RFC 8785 vectors, and the registry's own
 * canonicalization), and it finds a changed entry, a broken link and a wrong start.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { canonicalJson } from "../../protocol/registry/jcs.ts";
import { checkLogPage, entryHash, jcs } from "./log_check.ts";
import type { LogEntry } from "./types.ts";

const VECTORS = new URL("../../tests/vectors/jcs/", import.meta.url);

Deno.test("log check: JCS as RFC 8785's vectors and the registry's canonicalization", async () => {
  for (const name of ["arrays", "french", "structures", "unicode", "values", "weird"]) {
    const input = JSON.parse(await Deno.readTextFile(new URL(`input/${name}.json`, VECTORS)));
    const output = await Deno.readTextFile(new URL(`output/${name}.json`, VECTORS));
    assertEquals(jcs(input), output.trimEnd(), name);
    assertEquals(jcs(input), canonicalJson(input), name);
  }
});

async function chain(n: number): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  let prev = "0".repeat(64);
  for (let seq = 1; seq <= n; seq++) {
    const e = {
      seq,
      bot_id: `b${seq}`,
      operation: "create_bot",
      created_at: "2026-01-01T00:00:00.000Z",
      body: `{"bot_id":"b${seq}","name":"ü \\u2028 <x>"}`,
      prev_hash: prev,
      hash: "",
    };
    e.hash = await entryHash(e);
    prev = e.hash;
    out.push(e);
  }
  return out.reverse(); // newest first, as the page shows them
}

Deno.test("log check: a good page passes; a changed entry, a broken link, a bad start fail", async () => {
  assertEquals(await checkLogPage(await chain(4)), null);
  const changed = await chain(4);
  changed[1] = { ...changed[1], bot_id: "other" };
  assertEquals(await checkLogPage(changed), "entry #3 does not match its hash");
  const relinked = await chain(3);
  const e = { ...relinked[0], prev_hash: "f".repeat(64) };
  e.hash = await entryHash(e);
  relinked[0] = e;
  assertEquals(await checkLogPage(relinked), "entry #3 does not link to entry #2");
  const [first] = await chain(1);
  const wrongStart = { ...first, prev_hash: "1".repeat(64) };
  wrongStart.hash = await entryHash(wrongStart);
  assertEquals(await checkLogPage([wrongStart]), "entry #1 does not start the chain");
});
