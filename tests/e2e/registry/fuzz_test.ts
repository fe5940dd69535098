/**
 * Fuzz: 10,000 random and mutated request bodies across every JSON route of the hosting API and
 * the registry. No 5xx, the server still answers afterwards, and SQLite's integrity check passes.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { mintInvite, signedIn } from "../../../testing/accounts.ts";
import { assertDatabaseIntact, serverTest } from "../../helpers/server.ts";
import { fuzzRequests, fuzzSeed } from "../../helpers/prng.ts";

const TOTAL = 10_000;
const CONCURRENCY = 16;

serverTest("hostile fuzz: 10,000 bodies, no 5xx", {}, async (server) => {
  const { seed, next: rand, int, pick } = fuzzSeed();

  const { user: alice, token } = await signedIn(server, "alice");
  const invites = await Promise.all([1, 2, 3].map(() => mintInvite(server)));
  const H = server.httpUrl;
  const R = server.registryUrl;
  const userAuth = { Authorization: `Bearer ${token}` };
  const adminAuth = { Authorization: `Bearer ${server.adminKey}` };

  /** Routes: method, URL, extra headers, and well-formed seed bodies to mutate. */
  const routes: {
    method: string;
    url: string;
    headers: Record<string, string>;
    seeds: unknown[];
  }[] = [
    {
      method: "POST",
      url: `${H}/api/signup`,
      headers: {},
      seeds: invites.map((code, i) => ({
        username: `fuzz${i}`,
        public_key: alice.key.publicLine,
        invite_code: code,
      })),
    },
    {
      method: "POST",
      url: `${H}/api/login/challenge`,
      headers: {},
      seeds: [{ username: "alice" }],
    },
    {
      method: "POST",
      url: `${H}/api/login/verify`,
      headers: {},
      seeds: [{
        username: "alice",
        nonce: "a".repeat(64),
        signature: "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n",
      }],
    },
    {
      method: "POST",
      url: `${H}/api/repos`,
      headers: userAuth,
      seeds: [{ name: "fz" }, { name: "x", description: "d" }],
    },
    { method: "POST", url: `${H}/api/admin/invites`, headers: adminAuth, seeds: [{}] },
    { method: "DELETE", url: `${H}/api/repos/alice/fz`, headers: userAuth, seeds: [{}] },
    ...[
      "/v1/bots",
      "/v1/bots/fuzz-bot",
      "/v1/bots/fuzz-bot/keys",
      "/v1/bots/fuzz-bot/rotate",
      "/v1/bots/fuzz-bot/revoke",
      "/v1/attestations",
      "/v1/bots/fuzz-bot/keys/k1",
    ].flatMap((p) =>
      (p === "/v1/bots/fuzz-bot" ? ["PATCH"] : p.endsWith("/k1") ? ["DELETE"] : ["POST"]).map((
        method,
      ) => ({
        method,
        url: `${R}${p}`,
        headers: {},
        seeds: [
          {
            bot_id: "fuzz-bot",
            display_name: "Fuzz",
            keys: [{ kid: "k1", kty: "OKP", crv: "Ed25519", x: "A".repeat(43) }],
            controllers: [],
            policy: { threshold: 1 },
            nonce: "n".repeat(32),
            proof: "eyJhbGciOiJFZERTQSJ9..AAAA",
          },
          {
            subject: "fuzz-bot",
            issuer: "other",
            claims: { role: "deploy" },
            proof_set: [{ kid: "k1", jws: "x..y" }],
            nonce: "n",
          },
          {
            key: { kid: "k2", x: "B".repeat(43) },
            remove: ["k1"],
            reason: "compromised",
            proof: "a..b",
          },
        ],
      }))
    ),
  ];

  const enc = new TextEncoder();
  const atoms = [
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53 + 1,
    "",
    "a",
    "\u0000",
    "\ud800",
    "\udfff",
    "é",
    "𝔘",
    "x".repeat(5000),
    [],
    {},
  ];
  const randomValue = (depth: number): unknown => {
    if (depth > 4 || rand() < 0.4) return pick(atoms);
    if (rand() < 0.5) return Array.from({ length: int(4) }, () => randomValue(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = 0; i < int(5); i++) {
      o[
        pick([
          "username",
          "name",
          "nonce",
          "bot_id",
          "keys",
          "proof",
          "__proto__",
          "constructor",
          "x",
        ])
      ] = randomValue(depth + 1);
    }
    return o;
  };
  const mutateValue = (v: unknown): unknown => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const o = { ...(v as Record<string, unknown>) };
      const keys = Object.keys(o);
      const k = keys.length ? pick(keys) : "x";
      switch (int(4)) {
        case 0:
          o[k] = randomValue(1);
          break;
        case 1:
          delete o[k];
          break;
        case 2:
          o[k] = mutateValue(o[k]);
          break;
        default:
          o[`${k}_extra`] = randomValue(2);
      }
      return o;
    }
    if (typeof v === "string") {
      return v.slice(0, int(v.length + 1)) + pick(["", "\ud800", "/..", "'", "\u0000", "é"]);
    }
    return randomValue(2);
  };
  const mutateBytes = (b: Uint8Array): Uint8Array => {
    const out = Array.from(b);
    for (let i = 0; i < 1 + int(4); i++) {
      const op = int(4);
      const at = int(out.length + 1);
      if (op === 0 && out.length) out[at % out.length] = int(256);
      else if (op === 1) out.splice(at, 0, int(256));
      else if (op === 2) out.splice(at, 1 + int(3));
      else out.length = at;
    }
    return new Uint8Array(out);
  };
  const deepNest = (n: number) => "[".repeat(n) + "]".repeat(n);
  const body = (seeds: unknown[]): Uint8Array => {
    const seedText = JSON.stringify(pick(seeds));
    switch (int(10)) {
      case 0:
        return crypto.getRandomValues(new Uint8Array(int(200)));
      case 1:
        return mutateBytes(enc.encode(seedText));
      case 2:
        return enc.encode(JSON.stringify(randomValue(0)));
      case 3:
        return enc.encode(
          pick([
            deepNest(5000),
            `{"a":${deepNest(100_000)}}`,
            "1".repeat(400),
            "-0",
            "1e999",
            `{"a":1,"a":2}`,
            seedText.replace("{", '{"username":"x",'),
          ]),
        );
      case 4:
        return new Uint8Array([
          ...enc.encode(seedText.slice(0, -1)),
          0xff,
          0xfe,
          0xc0,
          0x80,
          0xed,
          0xa0,
          0x80,
          0x7d,
        ]);
      case 5:
        return enc.encode(seedText.replace(/"[^"]*"$|"[^"]*"}$/, '"\\ud800"}'));
      default:
        return enc.encode(JSON.stringify(mutateValue(JSON.parse(seedText))));
    }
  };
  const contentTypes = [
    "application/json",
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "",
    "application/json; charset=latin1",
  ];

  const failures: string[] = [];
  const sendOne = async () => {
    const route = pick(routes);
    const b = body(route.seeds);
    const ct = pick(contentTypes);
    const headers: Record<string, string> = { ...route.headers };
    if (ct) headers["Content-Type"] = ct;
    if (rand() < 0.05) headers["If-Match"] = pick(['"1"', "*", "\u00ff", '"x"']);
    const res = await fetch(route.url, {
      method: route.method,
      headers,
      body: b as Uint8Array<ArrayBuffer>,
    });
    const text = await res.text();
    if (res.status >= 500 && failures.length < 10) {
      failures.push(
        `${route.method} ${route.url} ${res.status} ${text.slice(0, 200)} body=${
          JSON.stringify(new TextDecoder().decode(b).slice(0, 300))
        }`,
      );
    }
    return res.status;
  };
  const { statuses, seconds } = await fuzzRequests(TOTAL, CONCURRENCY, sendOne);
  console.log(
    `fuzz seed=${seed} requests=${TOTAL} in ${seconds.toFixed(1)} s; statuses ${
      JSON.stringify([...statuses].sort())
    }`,
  );
  assertEquals(failures, [], `5xx responses (seed ${seed})`);

  const health = await fetch(`${H}/api/health`);
  assertEquals(health.status, 200, await health.text());
  const nonce = await fetch(`${R}/v1/nonce`);
  assertEquals(nonce.status, 200, await nonce.text());
  assertDatabaseIntact(server); // SQLite's own check (PostgreSQL keeps no file here)
  assert(server.logs().length >= 0);
});
