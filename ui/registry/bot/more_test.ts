/** The bot page's list views in the URL (more.ts): read, extended, linked and read in pieces. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import {
  itemAnchor,
  MORE_MAX_PAGES,
  nextView,
  readListView,
  viewHref,
  type ViewRead,
  viewReads,
} from "./more.ts";

Deno.test("list views: read from the URL, anything odd is the first page", () => {
  assertEquals(readListView("", "log"), { from: "", pages: 1 });
  assertEquals(readListView("?log_pages=3&controls_pages=2", "log"), { from: "", pages: 3 });
  assertEquals(readListView("?log_pages=3", "controls"), { from: "", pages: 1 });
  for (
    const [pages, n] of [["0", 1], ["-2", 1], ["x", 1], ["99", MORE_MAX_PAGES], [
      "99999",
      MORE_MAX_PAGES,
    ], ["", 1]]
  ) {
    assertEquals(readListView(`?received_pages=${pages}`, "received").pages, n, String(pages));
  }
  assertEquals(readListView("?issued_from=MTIz&issued_pages=2", "issued"), {
    from: "MTIz",
    pages: 2,
  });
  for (const from of ["a%20b", "a/b", "x".repeat(201), "%00"]) {
    assertEquals(readListView(`?issued_from=${from}`, "issued").from, "", from);
  }
});

Deno.test("list views: one page more, then from the next cursor once the view is full", () => {
  assertEquals(nextView({ from: "", pages: 1 }, "c1"), { from: "", pages: 2 });
  assertEquals(nextView({ from: "", pages: MORE_MAX_PAGES }, "c9"), { from: "c9", pages: 1 });
  assertEquals(nextView({ from: "c9", pages: 1 }, "c10"), { from: "c9", pages: 2 });
});

Deno.test("list views: links keep the other lists and land on the view's last page", () => {
  assertEquals(
    viewHref("/bots/b", "?log_pages=2&controls_pages=3", "controls", { from: "", pages: 4 }),
    "/bots/b?log_pages=2&controls_pages=4#controls-p4",
  );
  assertEquals(
    viewHref("/bots/b", "?controls_pages=3", "controls", { from: "", pages: 1 }),
    "/bots/b#controls-p1",
  );
  assertEquals(
    viewHref("/bots/b", "", "log", { from: "52", pages: 1 }),
    "/bots/b?log_from=52#log-p1",
  );
  assertEquals([0, 1, 19, 20, 40].map((i) => itemAnchor("log", i)), [
    "log-p1",
    undefined,
    undefined,
    "log-p2",
    "log-p3",
  ]);
});

Deno.test("list views: read in pieces of at most 100, each from the one before's cursor", () => {
  const run = (view: { from: string; pages: number }, total: number) => {
    const reads: ViewRead[] = [];
    const it = viewReads(view);
    let at = 0;
    for (let r = it.next(); !r.done;) {
      reads.push(r.value);
      const count = Math.min(r.value.limit, total - at);
      at += count;
      r = it.next({ count, next: at < total ? `c${at}` : null });
    }
    return reads;
  };
  assertEquals(run({ from: "", pages: 1 }, 500), [{ cursor: undefined, limit: 20 }]);
  assertEquals(run({ from: "", pages: 7 }, 500), [
    { cursor: undefined, limit: 100 },
    { cursor: "c100", limit: 40 },
  ]);
  // The list ends inside the first read: no second one.
  assertEquals(run({ from: "", pages: 7 }, 30), [{ cursor: undefined, limit: 100 }]);
  assertEquals(run({ from: "c200", pages: 1 }, 500), [{ cursor: "c200", limit: 20 }]);
});
