/**
 * The registry's canonicalization and verifier against the RFC 8785 and Wycheproof vectors in
 * tests/vectors/ (copied there with their sources and licences), plus strict parsing.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { decodeBase64Url, encodeBase64Url } from "./base64url.ts";
import { verifyEd25519 } from "../../server/registry/ed25519.ts";
import { canonicalBytes } from "./jcs.ts";
import { strictJsonProblem } from "./json.ts";
import { parseDetachedJws } from "./jws.ts";
import {
  checkNonce,
  issueNonce,
  NONCE_TTL_MS,
  nonceKeyFromHex,
} from "../../server/registry/nonce.ts";

const VECTORS = new URL("../../tests/vectors/", import.meta.url);
const fromHex = (s: string) => new Uint8Array((s.match(/../g) ?? []).map((h) => parseInt(h, 16)));

Deno.test("JCS: every RFC 8785 vector canonicalizes byte-exactly", async () => {
  const names = [...Deno.readDirSync(new URL("jcs/input/", VECTORS))].map((e) => e.name).sort();
  assertEquals(names.length, 6);
  for (const name of names) {
    const input = JSON.parse(await Deno.readTextFile(new URL(`jcs/input/${name}`, VECTORS)));
    const expected = await Deno.readFile(new URL(`jcs/output/${name}`, VECTORS));
    const hexFile =
      (await Deno.readTextFile(new URL(`jcs/outhex/${name.replace(".json", ".txt")}`, VECTORS)))
        .replace(/\s+/g, "");
    const got = canonicalBytes(input);
    assertEquals(got, expected, name);
    assertEquals(got, fromHex(hexFile), name);
  }
});

Deno.test("Ed25519: every Wycheproof vector gives exactly the expected result", async () => {
  const suite = JSON.parse(
    await Deno.readTextFile(new URL("ed25519/wycheproof_ed25519_test.json", VECTORS)),
  );
  let valid = 0, invalid = 0;
  for (const group of suite.testGroups) {
    for (const t of group.tests) {
      const ok = await verifyEd25519(fromHex(group.publicKey.pk), fromHex(t.sig), fromHex(t.msg));
      assertEquals(ok, t.result === "valid", `tcId ${t.tcId}: ${t.comment}`);
      if (ok) valid++;
      else invalid++;
    }
  }
  assertEquals(valid + invalid, suite.numberOfTests);
  assert(invalid > 0 && valid > 0);
});

Deno.test("strict JSON: duplicate keys, lone surrogates and deep nesting are refused", () => {
  assertEquals(strictJsonProblem('{"a":1,"b":{"a":2}}'), null);
  assertEquals(strictJsonProblem('{"a":1,"a":2}'), 'duplicate key "a" in request body');
  assertEquals(strictJsonProblem('{"x":[{"k":1,"k":2}]}'), 'duplicate key "k" in request body');
  assertEquals(strictJsonProblem('{"a\\"b":1,"a\\"b":2}'), 'duplicate key "a"b" in request body');
  // A key written with an escape is the same key as its plain spelling.
  assertEquals(strictJsonProblem('{"a":1,"\\u0061":2}'), 'duplicate key "a" in request body');
  assertEquals(
    strictJsonProblem('{"\\u0061":1,"b":"x\\\\","a":2}'),
    'duplicate key "a" in request body',
  );
  assertEquals(
    strictJsonProblem('{"k":"\\\\","s":"\\udc00"}'),
    "request body contains a lone UTF-16 surrogate",
  );
  assertEquals(
    strictJsonProblem('{"s":"\\ud800"}'),
    "request body contains a lone UTF-16 surrogate",
  );
  assertEquals(strictJsonProblem('{"s":"\\ud83d\\ude02"}'), null);
  assertEquals(
    strictJsonProblem("[".repeat(40) + "]".repeat(40)),
    "request body nests deeper than 32 levels",
  );
  assertEquals(strictJsonProblem("{"), "request body is not valid JSON");
});

Deno.test("base64url is strict: no padding, no other alphabet, canonical last character", () => {
  const bytes = new Uint8Array([0xfb, 0xff, 0x01]);
  assertEquals(encodeBase64Url(bytes), "-_8B");
  assertEquals(decodeBase64Url("-_8B"), bytes);
  for (const bad of ["-_8B=", "+/8B", "-_8 B", "a"]) assertEquals(decodeBase64Url(bad), null, bad);
  assertEquals(decodeBase64Url("AB"), null); // unused bits set: "AA" is the canonical form of 0x00
  assertEquals(decodeBase64Url("AA"), new Uint8Array([0]));
});

Deno.test("detached JWS: header rules are enforced", () => {
  const enc = (o: unknown) => encodeBase64Url(new TextEncoder().encode(JSON.stringify(o)));
  const sig = encodeBase64Url(new Uint8Array(64));
  const good = {
    alg: "EdDSA",
    b64: false,
    crit: ["b64"],
    kid: "k",
    nonce: "n",
    htm: "POST",
    htu: "/v1/bots",
  };
  assert(typeof parseDetachedJws(`${enc(good)}..${sig}`) !== "string");
  assertEquals(
    parseDetachedJws(`${enc(good)}.e30.${sig}`),
    "jws must be a detached JWS: <header>..<signature>",
  );
  assertEquals(
    parseDetachedJws(`${enc({ ...good, alg: "none" })}..${sig}`),
    'jws header alg must be "EdDSA"',
  );
  assertEquals(
    parseDetachedJws(`${enc({ ...good, b64: true })}..${sig}`),
    "jws header b64 must be false (RFC 7797 unencoded payload)",
  );
  assertEquals(
    parseDetachedJws(`${enc({ ...good, crit: [] })}..${sig}`),
    'jws header crit must be ["b64"]',
  );
  assertEquals(
    parseDetachedJws(`${enc({ ...good, x5u: "http://x" })}..${sig}`),
    'jws header has unsupported parameter "x5u"',
  );
  assertEquals(
    parseDetachedJws(`${enc(good)}..${sig}=`),
    "jws signature is not strict unpadded base64url",
  );
});

Deno.test("nonces: issued ones verify until they expire; forged ones never", () => {
  const key = nonceKeyFromHex("11".repeat(32));
  const now = 1_700_000_000_000;
  const n = issueNonce(key, now);
  assert(checkNonce(key, n, now + 1000).ok);
  assert(!checkNonce(key, n, now + NONCE_TTL_MS + 1).ok);
  assert(!checkNonce(nonceKeyFromHex("22".repeat(32)), n, now).ok);
  const bytes = decodeBase64Url(n)!;
  bytes[10] ^= 1;
  assert(!checkNonce(key, encodeBase64Url(bytes), now).ok);
});
