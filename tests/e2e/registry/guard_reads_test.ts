/**
 * Stored bots and plain searches answered on the connection guard's thread (and, with the guard
 * off, ahead of the router): the same bytes as the app's answer, responses in request order when
 * answers from both threads share a connection, Connection: close, fresh data after a write, and
 * every answer logged and counted by the app thread.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { serverTest, type TestServer } from "../../helpers/server.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { RawHttp, type RawResponse } from "../../helpers/raw_http.ts";

const GET_BOT = (path: string, extra = "") =>
  `GET ${path} HTTP/1.1\r\nHost: registry.test\r\n${extra}\r\n`;

/** Status, headers without Date (which changes every second), body. */
function comparable(res: RawResponse) {
  const headers = res.headers.split("\r\n").slice(1).filter((h) => !/^date:/i.test(h));
  return { status: res.status, headers, body: res.body };
}

/** The count of registry 200s on `route` in the server's metrics. */
async function countOk(server: TestServer, route: string): Promise<number> {
  const metric =
    `signet_http_requests_total{app="registry",method="GET",route="${route}",status="200"}`;
  const text = await (await fetch(`${server.httpUrl}/metrics`, {
    headers: { Authorization: `Bearer ${server.adminKey}` },
  })).text();
  const line = text.split("\n").find((l) => l.startsWith(metric + " "));
  return Number(line?.split(" ")[1] ?? 0);
}

serverTest("stored bots and plain searches answered on the guard thread", {}, async (server, t) => {
  const port = Number(new URL(server.registryUrl).port);
  /** The response to `target` as a connection's first request (the guard takes it if it can). */
  const firstAnswer = async (target: string) => {
    const conn = await RawHttp.open(port);
    await conn.send(GET_BOT(target));
    const res = await conn.response();
    conn.close();
    return res;
  };
  const c = client(server.registryUrl);
  const key = await newKey("k1");
  await c.createBot({
    bot_id: "guard-bot",
    name: "Guard bot \u00e9\u{1F916}",
    keys: [key.pub],
    capabilities: ["deploy"],
  }, [key.signer]);

  await t.step("the guard thread loaded the registry's reads (passed to it by URL)", () => {
    assert(!server.logs().includes("guard cannot read the registry"), server.logs());
  });

  await t.step("same bytes as the app thread's answer on a relayed connection", async () => {
    const fresh = await RawHttp.open(port);
    await fresh.send(GET_BOT("/v1/bots/guard-bot"));
    const local = await fresh.response();
    fresh.close();
    // A first request the guard thread does not take sends the connection to the app.
    const relayed = await RawHttp.open(port);
    await relayed.send(GET_BOT("/health"));
    assertEquals((await relayed.response()).status, 200);
    await relayed.send(GET_BOT("/v1/bots/guard-bot"));
    const viaApp = await relayed.response();
    relayed.close();
    assertEquals(comparable(local), comparable(viaApp));
    assertEquals(local.status, 200);
    assertEquals(JSON.parse(local.body).name, "Guard bot \u00e9\u{1F916}");
    assertStringIncludes(local.headers, 'etag: "1"');
    assertStringIncludes(local.headers, "access-control-allow-origin: *");
    assert(/\r\ndate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT/.test(local.headers));
  });

  await t.step("a plain search: the same bytes as the router's answer", async () => {
    // `q=guard%2Dbot` is the same search, but encoded: not plain, so the router answers it.
    const [local, viaApp] = await Promise.all(
      ["/v1/search?q=guard-bot&limit=5", "/v1/search?q=guard%2Dbot&limit=5"].map(firstAnswer),
    );
    assertEquals(comparable(local), comparable(viaApp));
    assertEquals(local.status, 200);
    assertEquals(JSON.parse(local.body).results.map((b: { bot_id: string }) => b.bot_id), [
      "guard-bot",
    ]);
    const all = await firstAnswer("/v1/search");
    assertEquals(all.status, 200);
    assertEquals(JSON.parse(all.body).next_cursor, null);
  });

  await t.step("a search the router refuses gets the router's error", async () => {
    const res = await firstAnswer("/v1/search?limit=0");
    assertEquals(res.status, 400);
    assertEquals(JSON.parse(res.body), { error: "limit must be an integer from 1 to 100" });
    assertEquals((await firstAnswer("/v1/search?status=gone")).status, 400);
  });

  await t.step("pipelined requests are answered in order across both threads", async () => {
    const conn = await RawHttp.open(port);
    await conn.send(
      GET_BOT("/v1/bots/guard-bot") + GET_BOT("/v1/bots/no-such-bot") + GET_BOT("/health") +
        GET_BOT("/v1/bots/guard-bot?fields=all"),
    );
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await conn.response());
    conn.close();
    assertEquals(answers.map((a) => a.status), [200, 404, 200, 200]);
    assertEquals(JSON.parse(answers[0].body).bot_id, "guard-bot");
    assertStringIncludes(answers[1].body, "no-such-bot");
    assertEquals(JSON.parse(answers[2].body).status, "ok");
    assertEquals(answers[3].body, answers[0].body);
  });

  await t.step("a request with a body after a local answer reaches the app intact", async () => {
    const conn = await RawHttp.open(port);
    const body = '{"bot_id":"guard-bot"}';
    await conn.send(
      GET_BOT("/v1/bots/guard-bot") +
        `POST /v1/bots HTTP/1.1\r\nHost: registry.test\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}` +
        GET_BOT("/v1/bots/guard-bot", `Content-Length: 0\r\n`),
    );
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await conn.response());
    conn.close();
    assertEquals(answers.map((a) => a.status), [200, 400, 200]);
    assertStringIncludes(answers[1].body, "keys"); // the app parsed the body it was sent
    assertEquals(answers[2].body, answers[0].body);
  });

  await t.step("a request split over two writes is still answered", async () => {
    const conn = await RawHttp.open(port);
    const text = GET_BOT("/v1/bots/guard-bot");
    await conn.send(text.slice(0, 20));
    await new Promise((r) => setTimeout(r, 50));
    await conn.send(text.slice(20));
    const res = await conn.response();
    conn.close();
    assertEquals(res.status, 200);
    assertEquals(JSON.parse(res.body).bot_id, "guard-bot");
  });

  await t.step("Connection: close is honoured", async () => {
    const conn = await RawHttp.open(port);
    await conn.send(GET_BOT("/v1/bots/guard-bot", "Connection: close\r\n"));
    const res = await conn.response();
    assertEquals(res.status, 200);
    assertStringIncludes(res.headers.toLowerCase(), "connection: close");
    assert((await conn.closedWithin(10_000)) !== null, "the server kept the connection open");
    conn.close();
  });

  await t.step("a write is visible to the next read at once", async () => {
    const conn = await RawHttp.open(port);
    await c.updateBot("guard-bot", { description: "changed" }, [key.signer]);
    await conn.send(GET_BOT("/v1/bots/guard-bot"));
    const res = await conn.response();
    conn.close();
    assertEquals(JSON.parse(res.body).description, "changed");
    assertStringIncludes(res.headers, 'etag: "2"');
  });

  await t.step("answers are logged and counted by the app", async () => {
    const metric =
      'signet_http_requests_total{app="registry",method="GET",route="/v1/bots/:bot_id",status="200"}';
    const count = async () => {
      const text = await (await fetch(`${server.httpUrl}/metrics`, {
        headers: { Authorization: `Bearer ${server.adminKey}` },
      })).text();
      const line = text.split("\n").find((l) => l.startsWith(metric + " "));
      return Number(line?.split(" ")[1] ?? 0);
    };
    // Earlier steps' answers are reported in batches: let them arrive first (until the count
    // and the log hold still for half a second; a busy machine may take seconds).
    const logged = () => server.logs().split("\n").filter((l) => l.includes("/v1/bots/guard-bot"));
    let before = -1;
    let linesBefore = -1;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      const [n, lines] = [await count(), logged().length];
      if (n === before && lines === linesBefore) break;
      [before, linesBefore] = [n, lines];
      await new Promise((r) => setTimeout(r, 500));
    }
    const conn = await RawHttp.open(port);
    for (let i = 0; i < 5; i++) {
      await conn.send(GET_BOT("/v1/bots/guard-bot"));
      assertEquals((await conn.response()).status, 200);
    }
    conn.close();
    let after = before;
    for (const deadline = Date.now() + 20_000; after < before + 5 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 20));
      after = await count();
    }
    assertEquals(after, before + 5);
    for (
      const deadline = Date.now() + 20_000;
      logged().length < linesBefore + 5 && Date.now() < deadline;
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const lines = logged().slice(linesBefore);
    assertEquals(lines.length, 5);
    const entry = JSON.parse(lines[0]);
    assertEquals([entry.app, entry.method, entry.path, entry.status], [
      "registry",
      "GET",
      "/v1/bots/guard-bot",
      200,
    ]);
    const searches = await countOk(server, "/v1/search");
    for (let i = 0; i < 3; i++) {
      assertEquals((await firstAnswer("/v1/search?q=guard")).status, 200);
    }
    let searchesAfter = searches;
    for (
      const deadline = Date.now() + 20_000;
      searchesAfter < searches + 3 && Date.now() < deadline;
    ) {
      await new Promise((r) => setTimeout(r, 20));
      searchesAfter = await countOk(server, "/v1/search");
    }
    assertEquals(searchesAfter, searches + 3);
  });
});

serverTest("plain searches answered ahead of the router with the guard off", {
  env: { SERVICE_HTTP_HEADER_TIMEOUT: "0", SERVICE_HTTP_IDLE_TIMEOUT: "0" },
}, async (server) => {
  const port = Number(new URL(server.registryUrl).port);
  const key = await newKey("k1");
  await client(server.registryUrl).createBot(
    { bot_id: "fast-bot", name: "Fast bot", keys: [key.pub], capabilities: ["deploy"] },
    [key.signer],
  );
  const before = await countOk(server, "/v1/search");
  const answers: RawResponse[] = [];
  for (const target of ["/v1/search?q=fast-bot", "/v1/search?q=fast%2Dbot"]) {
    const conn = await RawHttp.open(port);
    await conn.send(GET_BOT(target));
    answers.push(await conn.response());
    conn.close();
  }
  assertEquals(comparable(answers[0]), comparable(answers[1]));
  assertEquals(JSON.parse(answers[0].body).results[0].bot_id, "fast-bot");
  // Both counted once, by the fast path and by the router.
  assertEquals(await countOk(server, "/v1/search"), before + 2);
  const refused = await fetch(`${server.registryUrl}/v1/search?limit=0`);
  assertEquals(refused.status, 400);
  assertStringIncludes(await refused.text(), "limit must be an integer");
});
