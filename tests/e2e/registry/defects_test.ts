/**
 * Regressions of the registry write defects of issue 22, against the real server: the 32-key
 * bound on every write path, key labels in an update, the required PolicyRule description, the
 * last-active-key message, undecodable paths and cut-short bodies, a fuzz of the registry routes,
 * and the request details docs/registry-protocol.md promises. Searches with control characters:
 * search_controls_test.ts; records stored before these rules: old_records_test.ts.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { client, newKey, refusal, type TestBotKey } from "../../helpers/registry.ts";
import { firstAnswer, RawHttp } from "../../helpers/raw_http.ts";
import { errorLines, serverTest } from "../../helpers/server.ts";
import type { RegistryClient } from "../../../client/registry.ts";
import { signAttestation } from "../../../client/registry.ts";
import { replayLog } from "../../../server/registry/replay.ts";
import type { Bot } from "../../../protocol/registry/bot.ts";

const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: registry.test\r\n\r\n`;

/** The PATCH payload keys of `bot` (the four fields a client sends). */
function keysOf(bot: Bot) {
  return bot.keys.map((k) => ({
    key_id: k.key_id,
    algorithm: k.algorithm,
    public_key: k.public_key,
    label: k.label,
  }));
}

/** Sends a signed PATCH of `payload` to `botId`; status and parsed body. */
async function patch(
  c: RegistryClient,
  botId: string,
  payload: Record<string, unknown>,
  signer: TestBotKey,
  headers: Record<string, string> = {},
) {
  const path = `/v1/bots/${botId}`;
  const body = await c.signed("PATCH", path, { bot_id: botId, ...payload }, [signer.signer], botId);
  return c.raw<Bot & { error?: string }>("PATCH", path, JSON.stringify(body), headers);
}

serverTest("registry writes: the defects of issue 22", {}, async (server, t) => {
  const port = Number(new URL(server.registryUrl).port);
  const c = client(server.registryUrl);
  await t.step("a record holds at most 32 keys, revoked ones included", async () => {
    const keys = await Promise.all(Array.from({ length: 34 }, (_, i) => newKey(`k${i}`)));
    const k0 = [keys[0].signer];
    await c.createBot({ bot_id: "full-bot", keys: keys.slice(0, 31).map((k) => k.pub) }, k0);
    assertEquals((await c.addKey("full-bot", keys[31].pub, k0)).keys.length, 32);
    const full = `bot full-bot already holds 32 keys (revoked ones included), the most a ` +
      `record can hold: no key can be added or rotated in`;
    assertEquals(await refusal(c.addKey("full-bot", keys[32].pub, k0)), [409, full]);
    assertEquals(await refusal(c.rotateKey("full-bot", "k5", keys[32].pub, k0)), [409, full]);
    let bot = await c.getBot("full-bot");
    assertEquals([bot.version, bot.keys.length], [2, 32]);
    // Still updatable; a revoked key still counts and must still be listed.
    await c.removeKey("full-bot", "k31", k0, "lost");
    assertEquals(await refusal(c.addKey("full-bot", keys[33].pub, k0)), [409, full]);
    bot = await c.getBot("full-bot");
    const updated = await patch(c, "full-bot", { keys: keysOf(bot), name: "Full" }, keys[0]);
    assertEquals([updated.status, updated.body.name], [200, "Full"]);
    const withoutRevoked = keysOf(bot).filter((k) => k.key_id !== "k31");
    const missing = await patch(c, "full-bot", { keys: withoutRevoked, name: "x" }, keys[0]);
    assertEquals(missing.status, 400);
    assertStringIncludes(missing.body.error!, "key k31 is missing");
    // Create refuses a 33rd key in the body, before anything else.
    const over = await c.signed(
      "POST",
      "/v1/bots",
      { bot_id: "over-bot", keys: keys.slice(0, 33).map((k) => k.pub) },
      k0,
      "over-bot",
    );
    assertEquals((await c.raw("POST", "/v1/bots", JSON.stringify(over))).body, {
      error: "invalid request: keys: Too big: expected array to have <=32 items",
    });
  });

  const [a1, a2] = await Promise.all([newKey("a1"), newKey("a2")]);
  await t.step("an update lists the keys unchanged: a changed label is a 400", async () => {
    await c.createBot({
      bot_id: "label-bot",
      keys: [{ ...a1.pub, label: "laptop" }, { ...a2.pub, label: "ci" }],
    }, [a1.signer]);
    const bot = await c.getBot("label-bot");
    const logBefore = (await c.log("label-bot")).length;
    const relabelled = keysOf(bot).map((k) => k.key_id === "a2" ? { ...k, label: "runner" } : k);
    const res = await patch(c, "label-bot", { keys: relabelled, name: "L" }, a1);
    assertEquals(res.status, 400);
    assertEquals(
      res.body.error,
      'keys cannot be changed by update: key a2 has label "runner", not "ci"; send the ' +
        "bot's current keys unchanged, revoked ones included (use add-key, remove-key or " +
        "rotate to change them)",
    );
    for (
      const keys of [
        keysOf(bot).slice(0, 1),
        [...keysOf(bot), keysOf(bot)[0]],
        [...keysOf(bot), { ...a1.pub, key_id: "a3" }],
        keysOf(bot).map((k, i) => i ? k : { ...k, public_key: a2.pub.public_key }),
      ]
    ) {
      const refused = await patch(c, "label-bot", { keys, name: "L" }, a1);
      assertEquals(refused.status, 400, JSON.stringify(keys));
      assertStringIncludes(refused.body.error!, "keys cannot be changed by update");
    }
    assertEquals((await c.getBot("label-bot")).version, 1);
    assertEquals((await c.log("label-bot")).length, logBefore);
    // Order does not matter; the server-managed fields of a key as GET returns it are ignored.
    const reversed = await patch(c, "label-bot", { keys: keysOf(bot).reverse(), name: "R" }, a1);
    assertEquals([reversed.status, reversed.body.name], [200, "R"]);
    const asRead = (await c.getBot("label-bot")).keys.map((k) => ({ ...k, status: "revoked" }));
    const verbatim = await patch(c, "label-bot", { keys: asRead, name: "V" }, a1);
    assertEquals([verbatim.status, verbatim.body.keys.map((k) => k.status)], [200, [
      "active",
      "active",
    ]]);
  });

  await t.step("a policy rule needs its description (the spec's 4 of 4)", async () => {
    const k = await newKey("p1");
    const rule = { operation: "revoke_bot", threshold: 1, signers: ["p"] };
    const policy = (r: Record<string, unknown>) => ({
      version: 1,
      default_threshold: 1,
      signers: { p: { key_id: "p1" } },
      rules: [r],
    });
    assertEquals(
      await refusal(c.createBot({ bot_id: "rule-bot", keys: [k.pub], policy: policy(rule) }, [
        k.signer,
      ])),
      [400, 'invalid request: policy.rules[0].description: is required (send "" for none)'],
    );
    assertEquals(
      await refusal(
        c.createBot({
          bot_id: "rule-bot",
          keys: [k.pub],
          policy: policy({ ...rule, description: 7 }),
        }, [k.signer]),
      ),
      [400, "invalid request: policy.rules[0].description: must be a string"],
    );
    const bot = await c.createBot({
      bot_id: "rule-bot",
      keys: [k.pub],
      policy: policy({ ...rule, operation: "revoke", description: "" }),
    }, [k.signer]);
    assertEquals(bot.policy.rules as unknown, [{ ...rule, description: "" }]);
    const doc = await (await fetch(`${server.registryUrl}/v1/openapi.json`)).json();
    assertEquals(doc.components.schemas.PolicyRule.required.sort(), [
      "description",
      "operation",
      "signers",
      "threshold",
    ]);
  });

  await t.step("removing the last active key: the documented message", async () => {
    const k = await newKey("only");
    await c.createBot({ bot_id: "last-bot", keys: [k.pub] }, [k.signer]);
    assertEquals(await refusal(c.removeKey("last-bot", "only", [k.signer])), [
      400,
      "cannot revoke the last active key of bot last-bot; revoke the bot instead",
    ]);
    assertEquals((await c.getBot("last-bot")).keys[0].status, "active");
  });

  await t.step("undecodable write paths are 400 or 404, never 500", async () => {
    for (const seg of ["%ZZ", "%E0%A4%A", "%C0%AF", "%", "%ED%A0%80"]) {
      for (
        const [method, path] of [
          ["PATCH", `/v1/bots/${seg}`],
          ["POST", `/v1/bots/${seg}/keys`],
          ["POST", `/v1/bots/${seg}/rotate`],
          ["POST", `/v1/bots/${seg}/revoke`],
          ["DELETE", `/v1/bots/${seg}/keys/a1`],
          ["DELETE", `/v1/bots/label-bot/keys/${seg}`],
          ["GET", `/v1/bots/${seg}`],
          ["GET", `/v1/bots/${seg}/log`],
          ["GET", `/v1/bots/${seg}/attestations`],
        ]
      ) {
        for (const body of ["{}", JSON.stringify({ bot_id: "label-bot", keys: [a1.pub] })]) {
          const res = await firstAnswer(
            port,
            method === "GET" ? get(path) : `${method} ${path} HTTP/1.1\r\nHost: r\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
          );
          assert(res.status === 400 || res.status === 404, `${method} ${path}: ${res.status}`);
          assertEquals(typeof JSON.parse(res.body).error, "string");
        }
      }
    }
  });

  await t.step("a body the client cuts short is a 400, logged at info", async () => {
    for (
      const [path, framing, part] of [
        ["/v1/bots/short-a/keys", "Content-Length: 200", '{"key":'],
        ["/v1/bots/short-b/keys", "Transfer-Encoding: chunked", '7\r\n{"key":\r\n'],
      ]
    ) {
      const conn = await RawHttp.open(port);
      await conn.send(
        `POST ${path} HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\n${framing}\r\n` +
          `\r\n${part}`,
      );
      await new Promise((r) => setTimeout(r, 200));
      conn.close();
    }
    const logged = () =>
      server.logs().split("\n").filter((l) => l.includes('"msg":"http request"'))
        .map((l) => JSON.parse(l)).filter((e) =>
          e.method === "POST" && ["/v1/bots/short-a/keys", "/v1/bots/short-b/keys"]
            .includes(e.path)
        );
    for (let i = 0; i < 100 && logged().length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assertEquals(logged().map((e) => [e.path, e.status, e.level]), [
      ["/v1/bots/short-a/keys", 400, "info"],
      ["/v1/bots/short-b/keys", 400, "info"],
    ]);
  });

  await t.step("a chunked body is a 413 as soon as it grows past the limit", async () => {
    const chunk = "x".repeat(40_000);
    const size = chunk.length.toString(16);
    const res = await firstAnswer(
      port,
      "POST /v1/bots HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\n" +
        `Transfer-Encoding: chunked\r\n\r\n${size}\r\n${chunk}\r\n${size}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    assertEquals(res.status, 413);
    assertStringIncludes(JSON.parse(res.body).error, "request body too large");
  });

  await t.step(
    "a wrong method is 405 with Allow, an unknown path 404, before any body check",
    async () => {
      const del = await fetch(`${server.registryUrl}/v1/bots/doc-bot`, { method: "DELETE" });
      assertEquals(del.status, 405);
      assertEquals(del.headers.get("allow"), "GET, HEAD, PATCH");
      assertStringIncludes((await del.json()).error, "DELETE is not allowed on /v1/bots/doc-bot");
      // Not JSON, to a path no route has: the missing route is the answer, not the body.
      const nowhere = await fetch(`${server.registryUrl}/v1/nowhere`, {
        method: "POST",
        headers: { "Content-Type": "text/plain" },
        body: "x",
      });
      assertEquals(nowhere.status, 404);
      assertEquals((await nowhere.json()).error, "no registry route POST /v1/nowhere");
    },
  );

  await t.step("request details the protocol document promises", async () => {
    const k = await newKey("d1");
    const body = await c.signed("POST", "/v1/bots", { bot_id: "doc-bot", keys: [k.pub] }, [
      k.signer,
    ], "doc-bot");
    // Upper-case media type with a charset parameter, and a UTF-8 byte order mark.
    const created = await fetch(`${server.registryUrl}/v1/bots`, {
      method: "POST",
      headers: { "Content-Type": "APPLICATION/JSON; Charset=UTF-8" },
      body: new TextEncoder().encode("\uFEFF" + JSON.stringify(body)),
    });
    assertEquals(created.status, 201, await created.clone().text());
    assertEquals(created.headers.get("location"), "/v1/bots/doc-bot");
    await created.body?.cancel();
    // A malformed If-Match is a 412 like a stale one.
    const bot = await c.getBot("doc-bot");
    for (const ifMatch of ["garbage", '"2"', '"1', "", "1;2"]) {
      const res = await patch(c, "doc-bot", { keys: keysOf(bot), name: "x" }, k, {
        "If-Match": ifMatch,
      });
      assertEquals(res.status, 412, ifMatch);
      assertStringIncludes(res.body.error!, "record version is 1, but If-Match asked for");
    }
    for (const ifMatch of ['"1"', 'W/"1"', "1", "*"]) {
      const res = await patch(c, "doc-bot", { keys: keysOf(bot), name: "y" }, k, {
        "If-Match": ifMatch === "*" ? "*" : ifMatch.replace("1", String(bot.version)),
      });
      assertEquals(res.status, 200, ifMatch);
      bot.version = res.body.version;
    }
    // Publishing: 201, then 200 with the stored attestation; one log entry, about the subject.
    const content = { issuer: "doc-bot", subject: "label-bot", claim: "reviewed" };
    const att = await signAttestation(content, k.signer);
    const send = () =>
      c.raw<Record<string, unknown>>(
        "POST",
        "/v1/attestations",
        JSON.stringify({ attestation: att, format: "jcs-ed25519" }),
      );
    const published = await send();
    const again = await send();
    assertEquals([published.status, again.status], [201, 200]);
    assertEquals(again.body, published.body);
    const entries = (await c.log()).filter((e) => e.operation === "publish_attestation");
    assertEquals(entries.length, 1);
    const subject = await c.getBot("label-bot");
    assertEquals(
      [entries[0].bot_id, entries[0].version, entries[0].signers, entries[0].path],
      ["label-bot", subject.version, [{ key: "doc-bot#d1" }], "/v1/attestations"],
    );
    assertEquals(JSON.parse(entries[0].body), att);
    assert(!("proof" in entries[0]) && !("proof_set" in entries[0]));
  });

  await t.step("the log replays to the records GET returns", async () => {
    const replay = await replayLog(await c.log());
    assertEquals(replay.problem, null);
    for (const [id, bot] of replay.bots) assertEquals(bot, await c.getBot(id) as Bot, id);
  });

  await t.step("a fuzz of the registry routes: no 5xx, JSON errors", async () => {
    // mulberry32: a small seeded generator, so a failure repeats.
    let seed = 22;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed + 0x6D2B79F5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return list[(((x ^ (x >>> 14)) >>> 0) / 4294967296) * list.length | 0];
    };
    const segments = [
      "label-bot",
      "a1",
      "%ZZ",
      "%",
      "%00",
      "%C0%AF",
      "%ED%A0%80",
      "%E0%A4%A",
      "x".repeat(300),
      "%2e%2e",
      "%2F",
      "~",
    ];
    const routes = [
      "/v1/bots",
      "/v1/bots/{a}",
      "/v1/bots/{a}/keys",
      "/v1/bots/{a}/keys/{b}",
      "/v1/bots/{a}/rotate",
      "/v1/bots/{a}/revoke",
      "/v1/bots/{a}/attestations",
      "/v1/bots/{a}/log",
      "/v1/attestations",
      "/v1/log",
      "/v1/search",
      "/v1/nonce",
      "/v1/stats",
    ];
    const queries = [
      "",
      "?after=-1",
      "?after=99999999999999999999",
      "?limit=%00",
      "?limit=1e3",
      "?cursor=%ZZ",
      "?cursor=%00",
      "?role=%00",
      "?q=%00&status=%ED%A0%80",
      "?q=l%00x",
      "?q=%",
      "?capability=%C0%AF",
    ];
    const bodies = [
      "",
      "{",
      "[]",
      "null",
      '"x"',
      "\u0000",
      '{"bot_id":"\\u0000","keys":[]}',
      '{"bot_id":"label-bot","keys":[{}]}',
      '{"key":{"key_id":"%ZZ","algorithm":"Ed25519","public_key":"x","label":"l"}}',
      '{"attestation":{},"format":"jcs-ed25519"}',
      '{"a":"\\ud800"}',
      '{"a":1,"a":2}',
      "[".repeat(40) + "]".repeat(40),
      '{"old_key_id":"a1","new_key":null,"proof":{"algorithm":"Ed25519","key_id":"a1",' +
      '"created":"x","jws":".."}}',
      `{"reason":"${"r".repeat(300)}"}`,
    ];
    const types = ["application/json", "text/plain", "application/json; charset=latin1"];
    for (let i = 0; i < 400; i++) {
      const method = pick(["GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"]);
      const path = pick(routes).replace("{a}", pick(segments)).replace("{b}", pick(segments));
      const url = `${server.registryUrl}${path}${pick(queries)}`;
      const withBody = method !== "GET" && method !== "OPTIONS";
      const res = await fetch(url, {
        method,
        headers: withBody ? { "Content-Type": pick(types) } : {},
        body: withBody ? pick(bodies) : undefined,
      });
      const text = await res.text();
      assert(res.status < 500, `${method} ${url}: ${res.status} ${text}`);
      if (res.status >= 400) {
        assertEquals(typeof JSON.parse(text).error, "string", `${method} ${url}`);
      }
    }
  });

  assertEquals(errorLines(server), []);
});
