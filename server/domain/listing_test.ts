/** The paged listings' query parameters: defaults, limits, cursors that round-trip or are refused. */
import { assertEquals, assertThrows } from "../../tests/helpers/assert.ts";
import { DomainError } from "../../protocol/errors.ts";
import { encodeCursor, parseListParams, type SortSpec } from "./listing.ts";

const SORTS: SortSpec<"name" | "created"> = {
  name: { order: "asc", tieBreak: "string" },
  created: { order: "desc", tieBreak: "number" },
};

const parse = (query: string) => {
  const params = new URLSearchParams(query);
  return parseListParams((n) => params.get(n) ?? undefined, SORTS, "name");
};

Deno.test("list parameters: defaults, each sort's own order, words lowercased once each", () => {
  assertEquals(parse(""), {
    sort: "name",
    order: "asc",
    limit: 50,
    words: [],
    after: undefined,
    before: undefined,
  });
  const p = parse("sort=created&limit=100&q=Web%20 web  API");
  assertEquals([p.sort, p.order, p.limit, p.words], ["created", "desc", 100, ["web", "api"]]);
});

Deno.test("list parameters: a cursor round-trips in its own sort and order only", () => {
  const c = encodeCursor("created", "desc", ["2026-01-01T00:00:00.000Z", 42]);
  assertEquals(parse(`sort=created&after=${c}`).after, ["2026-01-01T00:00:00.000Z", 42]);
  assertEquals(parse(`sort=created&before=${c}`).before, ["2026-01-01T00:00:00.000Z", 42]);
  const named = encodeCursor("name", "asc", ["ålice", "ré/pô"]);
  assertEquals(parse(`after=${named}`).after, ["ålice", "ré/pô"]);
  for (
    const bad of [
      `after=${c}`,
      `sort=created&order=asc&after=${c}`,
      `sort=created&after=${c}&before=${c}`,
      `sort=created&after=${encodeCursor("created", "desc", ["x", "42"])}`,
      `after=${encodeCursor("name", "asc", ["x", 1])}`,
      `after=${encodeCursor("name", "asc", ["x\u0007", "y"])}`,
      "after=%%%",
      "after=AAAA",
      `after=${"A".repeat(601)}`,
    ]
  ) {
    const err = assertThrows(() => parse(bad), DomainError) as DomainError;
    assertEquals(err.kind, "invalid", bad);
  }
});

Deno.test("list parameters: out-of-range input is a 400 naming what is allowed", () => {
  const cases: [string, string][] = [
    ["limit=0", "limit must be an integer from 1 to 100"],
    ["limit=101", "limit must be an integer from 1 to 100"],
    ["limit=1e2", "limit must be an integer from 1 to 100"],
    ["limit=", "limit must be an integer from 1 to 100"],
    ["sort=size", "sort must be one of name, created"],
    ["order=ASC", "order must be asc or desc"],
    [`q=${"x".repeat(101)}`, "q must be at most 100 characters"],
    ["q=a%0Ab", "q must not contain control characters"],
    ["q=1 2 3 4 5 6 7 8 9", "q may hold at most 8 words"],
  ];
  for (const [query, message] of cases) {
    const err = assertThrows(() => parse(query), DomainError) as DomainError;
    assertEquals([err.kind, err.message], ["invalid", message], query);
  }
});
