/**
 * End-to-end: the registry over real HTTP against `signet serve`, driven by the typed client.
 *
 * Over 400 lines on purpose: it is one bot's life told in order (create, update, replays, keys
 * added, rotated and removed, a controller, revoke, attestations, then search and the audit log
 * replayed over all of it), and each step works on the bots and keys the steps before it made, so
 * the steps cannot stand apart in other files without each rebuilding that history.
 */
import {
  deepStrictEqual as assertEquals,
  match as assertMatch,
  ok as assert,
} from "node:assert/strict";
import { client, newKey, type TestBotKey, twoOfThreeToRevoke } from "../../helpers/registry.ts";
import { serverTest } from "../../helpers/server.ts";
import { RegistryError, signBody } from "../../../client/registry.ts";
import { replayLog } from "../../../server/registry/replay.ts";
import type { Bot } from "../../../protocol/registry/bot.ts";

async function rejects(p: Promise<unknown>, status: number, pattern?: RegExp): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    assertEquals(err.status, status, err.message);
    if (pattern) assertMatch(err.message, pattern);
    return err.message;
  }
  throw new Error(`expected HTTP ${status}, got success`);
}

serverTest("registry end to end", {}, async (server, t) => {
  const c = client(server.registryUrl);
  const raw = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    c.raw<{ error?: string } & Record<string, unknown>>(
      method,
      path,
      typeof body === "string" ? body : JSON.stringify(body),
      headers,
    );
  const [k1, k2, k3] = await Promise.all(["k1", "k2", "k3"].map((id) => newKey(id)));
  let k4: TestBotKey;
  let c1: TestBotKey;
  let b1: TestBotKey;
  const policy = twoOfThreeToRevoke({ alice: "k1", bob: "k2", carol: "k3" });

  await t.step("service routes", async () => {
    assertEquals((await c.raw("GET", "/health")).body, { status: "ok" });
    const root = (await c.raw<Record<string, unknown>>("GET", "/v1")).body;
    assertEquals(Object.keys(root).length, 8);
    assertEquals(root.openapi_url, "/v1/openapi.json");
    const doc = await c.raw<string>("GET", "/v1/docs/protocol");
    assertMatch(doc.body, /Signing input/i);
    assertEquals((await c.raw("GET", "/v1/nope")).status, 404);
  });

  await t.step("create a bot with 3 keys and a 2-of-3 revoke_bot rule", async () => {
    const bot = await c.createBot({
      bot_id: "alpha",
      name: "Alpha Deployer",
      description: "Deploys things",
      keys: [k1.pub, k2.pub, k3.pub],
      capabilities: ["deploy", "git:push"],
      policy,
      status: "revoked", // server-managed: ignored
      version: 99, // server-managed: ignored
    }, [k1.signer]);
    assertEquals(bot.status, "active");
    assertEquals(bot.version, 1);
    assertEquals(bot.keys.map((k) => k.status), ["active", "active", "active"]);
    assertEquals(bot.keys[0].origin.approved_by, [{ key: "alpha#k1" }]);
    const res = await c.raw("GET", "/v1/bots/alpha");
    assertEquals(res.headers.get("etag"), '"1"');
    await rejects(
      c.createBot({ bot_id: "alpha", keys: [k1.pub] }, [k1.signer]),
      409,
      /already exists/,
    );
    await rejects(c.getBot("nobody"), 404, /not found/);
  });

  await t.step("create is self-certifying and validates the policy", async () => {
    const other = await newKey("x1");
    await rejects(
      c.createBot({ bot_id: "beta-x", keys: [k1.pub] }, [other.signer]),
      400,
      /not a key of the record being created/,
    );
    await rejects(
      c.createBot({
        bot_id: "beta-x",
        keys: [other.pub],
        policy: {
          version: 1,
          default_threshold: 1,
          signers: { a: { key_id: "x1" } },
          rules: [{ operation: "revoke_bot", threshold: 2, signers: ["a"], description: "" }],
        },
      }, [other.signer]),
      400,
      /can never be satisfied/,
    );
    const payload = { bot_id: "beta-x", keys: [other.pub] };
    const none = await raw("POST", "/v1/bots", payload);
    assertEquals(none.status, 400);
    assertMatch(none.body.error!, /exactly one of proof or proof_set/);
    const signed = await c.signed("POST", "/v1/bots", payload, [other.signer], "beta-x");
    const both = await raw("POST", "/v1/bots", {
      ...signed,
      proof_set: { payload_sha256: "x", proofs: [signed.proof] },
    });
    assertEquals(both.status, 400);
    assertMatch(both.body.error!, /not both/);
    const bad = await raw("POST", "/v1/bots", {
      ...signed,
      keys: [{ ...other.pub, public_key: "abc" }],
    });
    assertEquals(bad.status, 400);
    assertMatch(bad.body.error!, /keys\[0\]\.public_key/);
    const unknownField = await raw("POST", "/v1/bots", { ...signed, colour: "red" });
    assertEquals(unknownField.status, 400);
    const dup = await raw("POST", "/v1/bots", `{"bot_id":"a","bot_id":"b","keys":[]}`);
    assertEquals(dup.status, 400);
    assertMatch(dup.body.error!, /duplicate key "bot_id"/);
    const big = await raw("POST", "/v1/bots", { ...signed, description: "x".repeat(70_000) });
    assertEquals(big.status, 413);
    const noType = await c.raw("POST", "/v1/bots", JSON.stringify(signed), {
      "Content-Type": "text/plain",
    });
    assertEquals(noType.status, 400);
  });

  await t.step("update with one signature; policy changes need every rule", async () => {
    const bot = await c.updateBot("alpha", { description: "Deploys more things" }, [k2.signer]);
    assertEquals(bot.version, 2);
    assertEquals(bot.description, "Deploys more things");
    const weaker = { ...policy, rules: [] };
    await rejects(
      c.updateBot("alpha", { policy: weaker }, [k1.signer]),
      400,
      /revoke_bot: requires 2 of 3 signers, found 1 valid signer/,
    );
    await rejects(
      c.updateBot("alpha", { keys: [k1.pub] }, [k1.signer]),
      400,
      /keys cannot be changed by update/,
    );
    await rejects(
      c.updateBot("alpha", { name: "x" }, [k1.signer], { ifMatch: 1 }),
      412,
      /version is 2/,
    );
    const ok = await c.updateBot("alpha", { name: "Alpha" }, [k1.signer], { ifMatch: 2 });
    assertEquals(ok.version, 3);
  });

  await t.step("replays, cross-path replays and tampering are refused", async () => {
    const path = "/v1/bots/alpha";
    const current = await c.getBot("alpha");
    const keys = current.keys.map(({ key_id, algorithm, public_key, label }) => ({
      key_id,
      algorithm,
      public_key,
      label,
    }));
    const body = await c.signed("PATCH", path, { bot_id: "alpha", keys, description: "v4" }, [
      k1.signer,
    ], "alpha");
    const first = await raw("PATCH", path, body);
    assertEquals(first.status, 200);
    const again = await raw("PATCH", path, body);
    assertEquals(again.status, 400);
    assertMatch(again.body.error!, /nonce has already been used/);

    const removeBody = await c.signed(
      "DELETE",
      "/v1/bots/alpha/keys/k2",
      {},
      [k1.signer],
      "alpha",
    );
    const moved = await raw("DELETE", "/v1/bots/alpha/keys/k3", removeBody);
    assertEquals(moved.status, 400);
    assertMatch(moved.body.error!, /htu "\/v1\/bots\/alpha\/keys\/k2" does not match/);
    const asPost = await raw("POST", "/v1/bots/alpha/revoke", removeBody);
    assertEquals(asPost.status, 400);

    const tamperBody = await c.signed(
      "PATCH",
      path,
      { bot_id: "alpha", keys, description: "v5" },
      [k1.signer],
      "alpha",
    );
    const tampered = await raw("PATCH", path, { ...tamperBody, description: "evil" });
    assertEquals(tampered.status, 400);
    assertMatch(tampered.body.error!, /signature does not verify/);

    const forged = await signBody({ bot_id: "alpha", keys, description: "v6" }, {
      method: "PATCH",
      path,
      nonce: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      signers: [k1.signer],
      targetBot: "alpha",
    });
    const badNonce = await raw("PATCH", path, forged);
    assertEquals(badNonce.status, 400);
    assertMatch(badNonce.body.error!, /nonce was not issued by this registry/);
    assertEquals((await c.getBot("alpha")).description, "v4");
  });

  await t.step("add, rotate and remove keys", async () => {
    k4 = await newKey("k4");
    const added = await c.addKey("alpha", k4.pub, [k1.signer]);
    assertEquals(added.keys.find((k) => k.key_id === "k4")?.status, "active");
    await rejects(c.addKey("alpha", k4.pub, [k1.signer]), 409, /key id k4 already exists/);
    await rejects(
      c.addKey("alpha", { ...k1.pub, key_id: "k1-copy" }, [k1.signer]),
      409,
      /key material already exists/,
    );
    await rejects(c.addKey("ghost", k4.pub, [k1.signer]), 404, /bot ghost not found/);

    const k5 = await newKey("k5");
    const rotated = await c.rotateKey("alpha", "k4", k5.pub, [k1.signer]);
    const old = rotated.keys.find((k) => k.key_id === "k4")!;
    assertEquals([old.status, old.replaced_by], ["revoked", "k5"]);
    assertEquals(rotated.keys.find((k) => k.key_id === "k5")?.origin.rotated_from, "k4");
    await rejects(
      c.rotateKey("alpha", "nope", (await newKey("k6")).pub, [k1.signer]),
      404,
      /old key nope not found/,
    );
    await rejects(c.rotateKey("alpha", "k5", k2.pub, [k1.signer]), 409, /already exists/);
    await rejects(
      c.rotateKey("alpha", "k4", (await newKey("k7")).pub, [k1.signer]),
      400,
      /already revoked/,
    );

    // Rotating a key named by the policy moves the name to the new key.
    const k3b = await newKey("k3b");
    const r2 = await c.rotateKey("alpha", "k3", k3b.pub, [k1.signer]);
    assertEquals(r2.policy.signers.carol, { key_id: "k3b" });
    k3.signer = k3b.signer;

    const removed = await c.removeKey("alpha", "k5", [k2.signer], "lost laptop");
    const gone = removed.keys.find((k) => k.key_id === "k5")!;
    assertEquals([gone.status, gone.revocation_reason], ["revoked", "lost laptop"]);
    await rejects(c.removeKey("alpha", "k5", [k2.signer]), 400, /already revoked/);
    await rejects(c.removeKey("alpha", "zzz", [k2.signer]), 404, /key zzz not found/);
    await rejects(c.removeKey("alpha", "k1", [k4.signer]), 400, /k4 is revoked/);
  });

  await t.step("a controller bot signs for another bot", async () => {
    c1 = await newKey("c1", "ops");
    await c.createBot({ bot_id: "ops", name: "Ops", keys: [c1.pub], capabilities: ["deploy"] }, [
      c1.signer,
    ]);
    b1 = await newKey("b1", "beta");
    await c.createBot(
      {
        bot_id: "beta",
        name: "Beta",
        keys: [b1.pub],
        controllers: [{ bot_id: "ops", label: "parent" }],
      },
      [b1.signer],
    );
    const updated = await c.updateBot("beta", { description: "managed by ops" }, [c1.signer]);
    assertEquals(updated.description, "managed by ops");
    const log = await c.log("beta");
    assertEquals(log[log.length - 1].signers, [{ key: "ops#c1" }]);
    const stranger = await newKey("s1", "alpha");
    await rejects(
      c.updateBot("beta", { description: "no" }, [stranger.signer]),
      400,
      /unknown key "alpha#s1"/,
    );
    await rejects(
      c.createBot({
        bot_id: "gamma",
        keys: [(await newKey("g1")).pub],
        controllers: [{ bot_id: "nope" }],
      }, [b1.signer]),
      400,
    );
  });

  await t.step("revoke needs 2 of 3 signatures", async () => {
    await rejects(
      c.revokeBot("alpha", [k1.signer], "retired"),
      400,
      /policy threshold not met for revoke_bot: requires 2 of 3 signers, found 1 valid signer/,
    );
    await rejects(
      c.revokeBot("alpha", [k1.signer, k1.signer], "retired"),
      400,
      /found 1 valid signer/,
    );
    const revoked = await c.revokeBot("alpha", [k1.signer, k3.signer], "retired");
    assertEquals(revoked.status, "revoked");
    assertEquals(revoked.revocation_reason, "retired");
    assert(revoked.keys.every((k) => k.status === "revoked"));
    await rejects(c.updateBot("alpha", { name: "back" }, [k1.signer]), 400, /revoked/);
  });

  await t.step("attestations are published and listed", async () => {
    const claim = {
      issuer: "ops",
      subject: "beta",
      claim: "reviewed-by:ops",
      evidence: [{ type: "url", value: "https://ops.example/r/1" }],
    };
    const att = await c.attest(claim, c1.signer);
    assertEquals([att.issuer, att.subject, att.claim], ["ops", "beta", "reviewed-by:ops"]);
    assertMatch(att.attestation_id!, /^[0-9a-f]{64}$/);
    const again = await c.raw(
      "POST",
      "/v1/attestations",
      JSON.stringify({
        attestation: { ...claim, signature: att.signature },
        format: "jcs-ed25519",
      }),
    );
    assertEquals(again.status, 200);
    await c.attest({ issuer: "beta", subject: "ops", claim: "peer" }, b1.signer);
    const list = await c.attestations("beta");
    assertEquals(list.attestations.map((a) => a.claim), ["reviewed-by:ops"]);
    assertEquals((await c.attestations("ops", { role: "issuer" })).attestations.length, 1);
    assertEquals((await c.attestations("ops")).attestations.map((a) => a.claim), ["peer"]);
    await rejects(
      c.attest({ ...claim, subject: "nobody" }, c1.signer),
      404,
      /subject bot nobody not found/,
    );
    await rejects(
      c.attest({ ...claim, issuer: "nobody" }, c1.signer),
      404,
      /issuer bot nobody not found/,
    );
    const forged = {
      attestation: { ...claim, claim: "admin", signature: att.signature },
      format: "jcs-ed25519",
    };
    const bad = await c.raw<{ error: string }>(
      "POST",
      "/v1/attestations",
      JSON.stringify(forged),
    );
    assertEquals(bad.status, 400);
    assertMatch(bad.body.error, /does not verify/);
    await rejects(c.attest({ ...claim, issuer: "alpha" }, k1.signer), 400, /revoked/);
    assertEquals((await c.raw("GET", "/v1/bots/nobody/attestations")).status, 404);
  });

  await t.step("search, stats and the audit log", async () => {
    for (let i = 0; i < 5; i++) {
      const k = await newKey("main");
      await c.createBot(
        {
          bot_id: `search-${i}`,
          name: `Searchable ${i}`,
          keys: [k.pub],
          capabilities: i % 2 ? ["odd"] : ["even"],
        },
        [k.signer],
      );
    }
    const q = await c.search({ q: "SEARCHABLE" });
    assertEquals(q.results.map((b) => b.bot_id), [
      "search-0",
      "search-1",
      "search-2",
      "search-3",
      "search-4",
    ]);
    assertEquals((await c.search({ q: "LPH" })).results.map((b) => b.bot_id), ["alpha"]);
    assertEquals((await c.search({ q: "al" })).results.map((b) => b.bot_id), ["alpha"]);
    assertEquals((await c.search({ status: "revoked" })).results.map((b) => b.bot_id), ["alpha"]);
    assertEquals((await c.search({ capability: "odd" })).results.map((b) => b.bot_id), [
      "search-1",
      "search-3",
    ]);
    assertEquals(
      (await c.search({ capability: "deploy", status: "active" })).results.map((b) => b.bot_id),
      ["ops"],
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.search({ limit: 2, cursor });
      assert(page.results.length <= 2);
      seen.push(...page.results.map((b) => b.bot_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    assertEquals(seen, [
      "alpha",
      "beta",
      "ops",
      "search-0",
      "search-1",
      "search-2",
      "search-3",
      "search-4",
    ]);
    assertEquals((await c.raw("GET", "/v1/search?limit=101")).status, 400);
    assertEquals((await c.raw("GET", "/v1/search?status=gone")).status, 400);
    assertEquals((await c.raw("GET", "/v1/search?cursor=%%%")).status, 400);

    const stats = await c.stats();
    assertEquals(stats.bots_total, 8);
    assertEquals(stats.bots_by_status, { active: 7, revoked: 1 });
    assertEquals(stats.controllers_total, 1);
    const log = await c.log();
    assertEquals(stats.log_entries, log.length);
    assertEquals(stats.operations_24h, log.length);

    const replay = await replayLog(log);
    assertEquals(replay.problem, null);
    for (const [id, bot] of replay.bots) assertEquals(bot, await c.getBot(id) as Bot);
    assertEquals(replay.bots.size, 8);
    const alphaLog = await c.log("alpha");
    assert(alphaLog.every((e) => e.bot_id === "alpha"));
    assertEquals(alphaLog[0].operation, "create_bot");
    assertEquals(alphaLog[alphaLog.length - 1].operation, "revoke_bot");

    const tampered = structuredClone(log);
    tampered[1].body = tampered[1].body.replace("Deploys", "Destroys");
    assertMatch((await replayLog(tampered)).problem!, /entry 2: hash does not match/);
  });
});
