/**
 * Control characters in registry searches (issue 22), against the real server with the connection
 * guard on and off: every control character is a 400 naming the parameter, other odd text is
 * matched literally, the limits hold, and the guard's plain answers are byte for byte the router's.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { firstAnswer, type RawResponse } from "../../helpers/raw_http.ts";
import { errorLines, serverTest, type TestServer } from "../../helpers/server.ts";

const CONTROL_ERROR = (param: string) =>
  `${param} must not contain control characters (U+0000 to U+001F, U+007F)`;
const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: registry.test\r\n\r\n`;

/** Status, headers without Date (it changes every second), body. */
function comparable(res: RawResponse) {
  const headers = res.headers.split("\r\n").slice(1).filter((h) => !/^date:/i.test(h));
  return { status: res.status, headers, body: res.body };
}

/** The same search with the first character of each value percent-encoded: the router's. */
function routed(target: string): string {
  return target.replace(
    /=([A-Za-z0-9._~-])/g,
    (_, c: string) => `=%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
}
/** The search checks, on a server whose connection guard is on or off. */
async function searchChecks(server: TestServer, t: Deno.TestContext): Promise<void> {
  const port = Number(new URL(server.registryUrl).port);
  const c = client(server.registryUrl);
  const key = await newKey("k1");
  await c.createBot(
    { bot_id: "lamp-x", name: "Lamp", keys: [key.pub], capabilities: ["deploy"] },
    [key.signer],
  );
  const other = await newKey("k1");
  await c.createBot({ bot_id: "other-bot", keys: [other.pub] }, [other.signer]);
  const search = async (query: string) => {
    const res = await firstAnswer(port, get(`/v1/search?${query}`));
    return { status: res.status, body: JSON.parse(res.body) };
  };
  const ids = (body: { results: { bot_id: string }[] }) => body.results.map((b) => b.bot_id);

  await t.step("every control character is a 400 naming the parameter, never a 500", async () => {
    const codes = [...Array(32).keys(), 0x7f];
    for (const code of codes) {
      const e = `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
      for (
        const [param, value] of [
          ["q", e],
          ["q", `l${e}x`],
          ["q", `lamp${e}`],
          ["q", `${e}lamp`],
          ["q", `${e}${e}${e}`],
          ["capability", e],
          ["capability", `deploy${e}`],
        ]
      ) {
        const res = await search(`${param}=${value}&limit=5`);
        assertEquals(
          res,
          { status: 400, body: { error: CONTROL_ERROR(param) } },
          `${param}=${value}`,
        );
      }
    }
  });

  await t.step("other odd text is matched literally", async () => {
    // A value that is not valid percent-encoded UTF-8 is searched as the characters sent.
    const odd = await newKey("k1");
    await c.createBot(
      { bot_id: "pct-bot", description: 'odd %ED%A0%80 "bytes"', keys: [odd.pub] },
      [odd.signer],
    );
    for (
      const [q, found] of [
        ["%ED%A0%80", ["pct-bot"]],
        ["%ed%a0%80", ["pct-bot"]],
        ["%80", ["pct-bot"]],
        ["%", ["pct-bot"]],
        ["%25", ["pct-bot"]],
        ["%22bytes%22", ["pct-bot"]],
        ["lamp%ED%A0%80", []],
        ["%C0%AF", []],
        ["%EF%BF%BD", []],
        ["l%22x", []],
      ] as const
    ) {
      const res = await search(`q=${q}`);
      assertEquals([res.status, ids(res.body)], [200, found], `q=${q}`);
    }
    assertEquals(ids((await search("capability=%ED%A0%80")).body), []);
    // Spaces around q are not part of it; the match is case-insensitive.
    assertEquals(ids((await search("q=%20LAMP%20")).body), ["lamp-x"]);
    assertEquals(ids((await search("q=amp-")).body), ["lamp-x"]);
  });

  await t.step("q holds at most 200 characters (code points)", async () => {
    assertEquals((await search(`q=${"a".repeat(200)}`)).status, 200);
    assertEquals(await search(`q=${"a".repeat(201)}`), {
      status: 400,
      body: { error: "q is longer than 200 characters" },
    });
    assertEquals((await search(`q=${"%F0%9F%A4%96".repeat(200)}`)).status, 200);
    assertEquals((await search(`q=${"%F0%9F%A4%96".repeat(201)}`)).status, 400);
    assertEquals((await search(`q=%20${"a".repeat(200)}%20`)).status, 200);
  });

  await t.step("the other parameters refuse odd values with 400", async () => {
    for (
      const query of [
        "status=%00",
        "status=active%00",
        "limit=%00",
        "limit=1%00",
        "limit=101",
        "cursor=%00",
        "cursor=%ED%A0%80",
        "q=a&q=b",
      ]
    ) {
      const res = await search(query);
      assertEquals(res.status, 400, query);
      assertEquals(typeof res.body.error, "string");
    }
  });

  await t.step("plain searches: the same bytes as the router's answer", async () => {
    const page = await search("limit=1");
    const cursor = page.body.next_cursor as string;
    for (
      const target of [
        "/v1/search",
        "/v1/search?q=lamp",
        "/v1/search?q=LAMP&status=active",
        "/v1/search?q=la",
        "/v1/search?q=zzz",
        "/v1/search?capability=deploy",
        "/v1/search?limit=1",
        `/v1/search?limit=1&cursor=${cursor}`,
        `/v1/search?q=${"a".repeat(200)}`,
        `/v1/search?q=${"a".repeat(201)}`,
        "/v1/search?q=~~~",
        "/v1/search?status=gone",
        "/v1/search?limit=0",
      ]
    ) {
      const direct = await firstAnswer(port, get(target));
      const viaRouter = await firstAnswer(port, get(routed(target)));
      assert(routed(target) !== target || !target.includes("="), target);
      assertEquals(comparable(direct), comparable(viaRouter), target);
      assert(direct.status === 200 || direct.status === 400, target);
    }
  });

  assertEquals(errorLines(server), []);
}

serverTest(
  "search: control characters, limits and plain answers (connection guard on)",
  {},
  async (server, t) => {
    await searchChecks(server, t);
  },
);

serverTest("search: control characters, limits and plain answers (connection guard off)", {
  env: { SERVICE_HTTP_HEADER_TIMEOUT: "0", SERVICE_HTTP_IDLE_TIMEOUT: "0" },
}, async (server, t) => {
  await searchChecks(server, t);
});
