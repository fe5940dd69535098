/** The clone cache's rules: which requests are clones, how v2 requests are split, what is kept. */
import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import {
  CLONE_CACHE_MAX_AGE_MS,
  CloneCache,
  isCloneRequest,
  type Produced,
} from "./clone_cache.ts";
import { RequestSplitter } from "../ssh/v2_requests.ts";

const enc = new TextEncoder();
const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, "0") + line;
const OID = "c32713f0ee007f81c32e6ee0c4e4af825f13a406";
/** What `git clone` (2.39) sends as its v2 fetch. */
const CLONE = pkt("command=fetch\n") + pkt("agent=git/2.39.5\n") + pkt("object-format=sha1\n") +
  "0001" + pkt("thin-pack\n") + pkt("no-progress\n") + pkt("ofs-delta\n") +
  pkt(`want ${OID}\n`) + pkt("done\n") + "0000";

Deno.test("a v2 fetch without haves is a clone request; anything else is not", () => {
  assert(isCloneRequest(enc.encode(CLONE)));
  const fetchWithHave = CLONE.replace(pkt("done\n"), pkt(`have ${OID}\n`) + pkt("done\n"));
  assert(!isCloneRequest(enc.encode(fetchWithHave)), "a fetch with haves");
  const lsRefs = pkt("command=ls-refs\n") + "0001" + pkt("peel\n") + "0000";
  assert(!isCloneRequest(enc.encode(lsRefs)), "ls-refs");
  assert(!isCloneRequest(enc.encode(CLONE + "0000")), "two requests");
  assert(!isCloneRequest(enc.encode(CLONE.slice(0, -4))), "no flush at the end");
  assert(!isCloneRequest(enc.encode("zzzz" + CLONE)), "a malformed length");
  assert(!isCloneRequest(enc.encode("0000")), "a lone flush");
  assert(!isCloneRequest(enc.encode("0003" + CLONE)), "an impossible length");
});

Deno.test("the splitter cuts requests at their flush, across and within chunks", () => {
  const splitter = new RequestSplitter();
  const stream = enc.encode(pkt("command=ls-refs\n") + "0001" + pkt("peel\n") + "0000" + CLONE);
  const seen: string[] = [];
  for (let i = 0; i < stream.length; i += 7) {
    for (const piece of splitter.push(stream.subarray(i, i + 7))) {
      assert(piece.whole, "only whole requests");
      seen.push(new TextDecoder().decode(piece.bytes));
    }
  }
  assertEquals(seen.length, 2);
  assert(seen[0].startsWith(pkt("command=ls-refs\n")) && seen[0].endsWith("0000"));
  assertEquals(seen[1], CLONE);
  assertEquals(splitter.end(), []);
  // A trailing partial request is handed over as it is when the client stops.
  splitter.push(enc.encode(pkt("command=fetch\n")));
  assertEquals(splitter.end().map((p) => p.whole), [false]);
});

Deno.test("the splitter passes everything through after bytes it cannot follow", () => {
  const splitter = new RequestSplitter();
  const first = splitter.push(enc.encode(pkt("command=fetch\n") + "zzzz"));
  assertEquals(first.length, 1);
  assert(!first[0].whole);
  const next = splitter.push(enc.encode(CLONE));
  assertEquals(next.length, 1);
  assert(!next[0].whole, "no request parsing after a surprise");
  const big = new RequestSplitter();
  const pieces = big.push(enc.encode(pkt("command=fetch\n") + pkt("x".repeat(65000)).repeat(2)));
  assertEquals(pieces.map((p) => p.whole), [false], "an oversized request passes through");
});

/** A producer that counts its runs and answers `body` (or fails). */
function producer(body: string, succeed = true) {
  const counter = { runs: 0 };
  const produce = (): Promise<Produced> => {
    counter.runs++;
    const chunks = [body.slice(0, 3), body.slice(3)].map((s) => enc.encode(s));
    return Promise.resolve({
      stream: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      succeeded: Promise.resolve(succeed),
    });
  };
  return { counter, produce };
}

const text = async (s: ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>) =>
  await new Response(await s).text();
const REQUEST = enc.encode(CLONE);
/** A repository whose refs never change. */
const refs = () => Promise.resolve("refs");
/** The files in `dir` once deletions under way are done (they run in the background), up to 2 s. */
async function filesLeft(dir: string): Promise<string[]> {
  for (let i = 0;; i++) {
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    if (names.length === 0 || i === 40) return names;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** Where an answer came from, after reading it (a reader holds the entry's file while open). */
const sourceOf = async (
  answer: Promise<{ stream: ReadableStream<Uint8Array>; source: string }>,
) => {
  const { stream, source } = await answer;
  await text(stream);
  return source;
};

/** A test of a cache of `budget` bytes in a fresh data dir `dir`, removed afterwards. */
function cacheTest(
  name: string,
  budget: number,
  fn: (cache: CloneCache, dir: string) => Promise<void>,
) {
  Deno.test(name, async () => {
    const dir = await Deno.makeTempDir();
    try {
      await fn(await CloneCache.create(`${dir}/cache/clones`, budget), dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

cacheTest(
  "a clone response is made once and then served from the cache",
  1024 * 1024,
  async (cache) => {
    const { counter, produce } = producer("PACK-one");
    const first = await cache.respond(1, REQUEST, produce, refs);
    assertEquals([first.source, await text(first.stream)], ["made", "PACK-one"]);
    const second = await cache.respond(1, REQUEST, produce, refs);
    assertEquals([second.source, await text(second.stream)], ["cache", "PACK-one"]);
    assertEquals(counter.runs, 1);
    // Another repository, or another request, is its own entry.
    await text((await cache.respond(2, REQUEST, produce, refs)).stream);
    await text(
      (await cache.respond(1, enc.encode(CLONE.replace("ofs", "OFS")), produce, refs)).stream,
    );
    assertEquals(counter.runs, 3);
    // A push retires the repository's entries.
    cache.refsChanged(1);
    const after = await cache.respond(1, REQUEST, producer("PACK-two").produce, refs);
    assertEquals([after.source, await text(after.stream)], ["made", "PACK-two"]);
  },
);

cacheTest(
  "identical requests at once run git once; a failed run is not kept",
  1024 * 1024,
  async (cache) => {
    const { counter, produce } = producer("PACK-shared");
    // Each client reads its answer as it comes (the first one's reading finishes the entry).
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const answer = await cache.respond(7, REQUEST, produce, refs);
        return { source: answer.source, body: await text(answer.stream) };
      }),
    );
    assertEquals(answers.map((a) => a.body), Array(5).fill("PACK-shared"));
    assertEquals(counter.runs, 1);
    assertEquals(answers.filter((a) => a.source === "made").length, 1);

    // When git fails, its readers fail too (the client sees an error, not a short pack) and the
    // next identical request runs git again.
    const failing = producer("PACK-broken", false);
    await assertRejects(() =>
      text(cache.respond(8, REQUEST, failing.produce, refs).then((a) => a.stream))
    );
    const retry = await cache.respond(8, REQUEST, failing.produce, refs);
    assertEquals(retry.source, "made");
    await assertRejects(() => text(retry.stream));
    assertEquals(failing.counter.runs, 2);
    // git's run does not depend on its first reader: the response is kept when that one leaves.
    const cancelled = await cache.respond(9, REQUEST, producer("PACK-kept").produce, refs);
    await cancelled.stream.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = await cache.respond(9, REQUEST, producer("x").produce, refs);
    assertEquals([later.source, await text(later.stream)], ["cache", "PACK-kept"]);
  },
);

cacheTest("the cache keeps to its budget and its maximum age", 20, async (cache, dir) => {
  await text((await cache.respond(1, REQUEST, producer("A".repeat(12)).produce, refs)).stream);
  await text((await cache.respond(2, REQUEST, producer("B".repeat(12)).produce, refs)).stream);
  assertEquals(cache.size, 1, "two entries of 12 bytes do not fit in 20");
  assertEquals(await sourceOf(cache.respond(2, REQUEST, producer("").produce, refs)), "cache");
  await text((await cache.respond(3, REQUEST, producer("C".repeat(30)).produce, refs)).stream);
  assertEquals(cache.size, 1, "a response larger than the budget is not kept");
  assertEquals(await sourceOf(cache.respond(2, REQUEST, producer("").produce, refs)), "cache");
  assertEquals(cache.prune(Date.now() + CLONE_CACHE_MAX_AGE_MS + 1), 1);
  assertEquals(cache.size, 0);
  assertEquals(await filesLeft(`${dir}/cache/clones`), [], "no file is left behind");
});

cacheTest(
  "a push while git is starting does not break the clone that started it",
  1024 * 1024,
  async (cache, dir) => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { produce } = producer("PACK-late");
    const answer = cache.respond(3, REQUEST, async () => {
      await gate; // waiting for a git slot
      return await produce();
    }, refs);
    await new Promise((resolve) => setTimeout(resolve, 20));
    cache.refsChanged(3);
    open();
    assertEquals(await text((await answer).stream), "PACK-late");
    assertEquals(await filesLeft(`${dir}/cache/clones`), [], "the retired file is gone");
  },
);

cacheTest(
  "refs changed by another process: the next clone misses; an answer made across a change is dropped",
  1024 * 1024,
  async (cache) => {
    let state = "one";
    const current = () => Promise.resolve(state);
    assertEquals(await sourceOf(cache.respond(4, REQUEST, producer("A").produce, current)), "made");
    assertEquals(
      await sourceOf(cache.respond(4, REQUEST, producer("A").produce, current)),
      "cache",
    );
    state = "two"; // a push through another instance: nothing told this one
    const fresh = producer("B");
    const answer = await cache.respond(4, REQUEST, fresh.produce, current);
    assertEquals([answer.source, await text(answer.stream)], ["made", "B"]);
    assertEquals(await sourceOf(cache.respond(4, REQUEST, fresh.produce, current)), "cache");
    // The refs move while git runs: the answer is served, then not kept.
    let moving = "three";
    const racing = () => Promise.resolve(moving);
    const raced = await cache.respond(4, REQUEST, async () => {
      const made = await producer("C").produce();
      moving = "four";
      return made;
    }, racing);
    assertEquals(await text(raced.stream), "C");
    // Dropped once git's run is recorded and the refs read again (in the background).
    for (let i = 0; cache.size > 2 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(cache.size, 2, "the entries of states one and two are left");
    moving = "three";
    assertEquals(await sourceOf(cache.respond(4, REQUEST, producer("D").produce, racing)), "made");
  },
);
