/**
 * Search sorts through the API (issue 27), on the engine the suite runs on: every sort pages
 * through every match once, in its order, by keyset cursors; filters and counts are unchanged by
 * it; a bad sort or a cursor of another sort is a 400 JSON error; a plain sorted search answered
 * ahead of the router is byte for byte the router's answer.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { firstAnswer } from "../../helpers/raw_http.ts";
import { errorLines, serverTest } from "../../helpers/server.ts";

interface Found {
  bot_id: string;
  name?: string;
  created_at: string;
  updated_at: string;
  status: string;
}

const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: registry.test\r\n\r\n`;

serverTest(
  "search sorts: name, created and updated, both ways, paged by cursor",
  {},
  async (server, t) => {
    const c = client(server.registryUrl);
    const base = server.registryUrl;
    // Names in another order than the ids; one without a name (it sorts by its id); letters in
    // both cases (the name sort ignores ASCII case).
    const bots: [string, string | undefined][] = [
      ["s-01", "delta"],
      ["s-02", "Alpha"],
      ["s-03", undefined],
      ["s-04", "charlie"],
      ["s-05", "Bravo"],
      ["s-06", "echo"],
      ["s-07", "alpha"],
      // Names that begin with U+FEFF (a byte-order mark to a careless UTF-8 decoder): a page
      // ending at s-08 has a cursor that must keep the character.
      ["s-08", "\uFEFFzulu"],
      ["s-09", "\uFEFFZz"],
    ];
    const keys = new Map<string, Awaited<ReturnType<typeof newKey>>>();
    for (const [id, name] of bots) {
      const key = await newKey("k1");
      keys.set(id, key);
      await c.createBot({
        bot_id: id,
        ...(name ? { name } : {}),
        keys: [key.pub],
        capabilities: ["sorted"],
      }, [
        key.signer,
      ]);
    }
    // Changed later: the most recently updated first under -updated.
    await c.updateBot("s-03", { description: "changed once" }, [keys.get("s-03")!.signer]);
    await c.updateBot("s-01", { description: "changed last" }, [keys.get("s-01")!.signer]);

    const search = async (query: string) => {
      const res = await fetch(`${base}/v1/search?${query}`);
      return { status: res.status, body: await res.json() };
    };
    /** Every page of `query` (2 per page), following next_cursor. */
    const allPages = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 10; i++) {
        const { status, body } = await search(
          `${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        assertEquals(status, 200, query);
        ids.push(...body.results.map((b: Found) => b.bot_id));
        cursor = body.next_cursor;
        if (!cursor) break;
      }
      return ids;
    };
    const all = (await search("capability=sorted&limit=100")).body.results as Found[];

    await t.step("each sort, both ways, pages through every match once in its order", async () => {
      const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const ordered = (key: (b: Found) => string, desc: boolean) =>
        all.toSorted((a, b) =>
          (desc ? -1 : 1) * (byteOrder(key(a), key(b)) || byteOrder(a.bot_id, b.bot_id))
        )
          .map((b) => b.bot_id);
      const name = (b: Found) => (b.name || b.bot_id).toLowerCase();
      assertEquals(await allPages("capability=sorted&sort=name"), [
        "s-02",
        "s-07",
        "s-05",
        "s-04",
        "s-01",
        "s-06",
        "s-03",
        "s-08",
        "s-09",
      ]);
      assertEquals(await allPages("capability=sorted&sort=name"), ordered(name, false));
      assertEquals(await allPages("capability=sorted&sort=-name"), ordered(name, true));
      assertEquals(
        await allPages("capability=sorted&sort=created"),
        ordered((b) => b.created_at, false),
      );
      assertEquals(
        await allPages("capability=sorted&sort=-created"),
        ordered((b) => b.created_at, true),
      );
      assertEquals(
        await allPages("capability=sorted&sort=updated"),
        ordered((b) => b.updated_at, false),
      );
      const recent = await allPages("capability=sorted&sort=-updated");
      assertEquals(recent, ordered((b) => b.updated_at, true));
      assertEquals(recent.slice(0, 2), ["s-01", "s-03"]);
      // The default order is bot_id, as before; `sort=bot_id` names it.
      const ids = bots.map(([id]) => id);
      assertEquals(await allPages("capability=sorted"), ids);
      assertEquals(await allPages("capability=sorted&sort=bot_id"), ids);
      // Filters work as in bot_id order.
      assertEquals(await allPages("q=alpha&sort=-name"), ["s-07", "s-02"]);
      assertEquals(await allPages("q=alpha&status=revoked&sort=-name"), []);
    });

    await t.step("counts are the same whatever the sort", async () => {
      const counts = await (await fetch(`${base}/v1/search/counts?capability=sorted`)).json();
      const sorted = await (await fetch(`${base}/v1/search/counts?capability=sorted&sort=-name`))
        .json();
      assertEquals(sorted, counts);
      assertEquals(counts.total, 9);
    });

    await t.step("a bad sort or a cursor of another sort is a 400 JSON error", async () => {
      for (const sort of ["size", "NAME", "-bot_id", "name%00", "+name", "created,name"]) {
        const res = await search(`sort=${sort}`);
        assertEquals(res.status, 400, sort);
        assertEquals(
          res.body.error,
          'invalid request: query sort: Invalid option: expected one of "bot_id"|"name"|"-name"|"created"|"-created"|"updated"|"-updated"',
          sort,
        );
      }
      const byName = (await search("capability=sorted&sort=name&limit=2")).body
        .next_cursor as string;
      const byId = (await search("capability=sorted&limit=2")).body.next_cursor as string;
      assertEquals(await search(`sort=-created&cursor=${byName}`), {
        status: 400,
        body: { error: "cursor belongs to another sort than -created: start from the first page" },
      });
      assertEquals(await search(`sort=name&cursor=${byId}`), {
        status: 400,
        body: { error: "cursor belongs to another sort than name: start from the first page" },
      });
      assertEquals(await search(`cursor=${byName}`), {
        status: 400,
        body: { error: "cursor belongs to another sort than bot_id: start from the first page" },
      });
      assertEquals(await search("sort=name&cursor=bm9wZQ"), {
        status: 400,
        body: { error: "cursor is not valid" },
      });
    });

    await t.step("plain sorted searches: the same bytes as the router's answer", async () => {
      const port = Number(new URL(base).port);
      const byName = (await search("capability=sorted&sort=name&limit=2")).body
        .next_cursor as string;
      for (
        const target of [
          "/v1/search?sort=name",
          "/v1/search?sort=-created&capability=sorted&limit=3",
          `/v1/search?sort=name&limit=2&cursor=${byName}`,
          `/v1/search?sort=-name&limit=2&cursor=${byName}`,
          // Pages ending at s-08, whose name key begins with U+FEFF: the cursor must keep it.
          "/v1/search?sort=name&capability=sorted&limit=8",
          "/v1/search?sort=-name&capability=sorted&limit=2",
          "/v1/search?sort=bogus",
        ]
      ) {
        const direct = await firstAnswer(port, get(target));
        // The router's answer to the same search, its sort percent-encoded (not plain).
        const routed = target.replace(
          /sort=(.)/,
          (_, ch: string) => `sort=%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
        );
        const viaRouter = await firstAnswer(port, get(routed));
        const comparable = (r: typeof direct) => ({
          status: r.status,
          headers: r.headers.split("\r\n").slice(1).filter((h) => !/^date:/i.test(h)),
          body: r.body,
        });
        assertEquals(comparable(direct), comparable(viaRouter), target);
        assert(direct.status === 200 || direct.status === 400, target);
      }
    });

    assertEquals(errorLines(server), []);
  },
);
