/**
 * Fuzz over every hosting route's path, query, headers and body (the API, the admin API,
 * /metrics, the dashboard and its assets, and the smart HTTP paths without a body): malformed
 * percent-encodings, wrong JSON types, huge values, control characters. No answer is a 5xx,
 * every API error is `{"error": "..."}`, nothing is logged at error level, and the server still
 * answers afterwards. (The smart HTTP request bodies and the registry have fuzz tests of their
 * own.)
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { createRepo, createUser, login, mintInvite, signedIn } from "../../../testing/accounts.ts";
import { fuzzRequests, fuzzSeed } from "../../helpers/prng.ts";
import { RawHttp } from "../../helpers/raw_http.ts";
import { errorLines, serverTest } from "../../helpers/server.ts";

const TOTAL = 3000;
const CONCURRENCY = 8;

/** Percent-encodings that do not decode to valid UTF-8, or decode to something awkward. */
const BAD_PERCENT = [
  "%ZZ",
  "%E0%A4%A",
  "%C0%AF",
  "%",
  "%2",
  "%00",
  "%FF",
  "%ED%A0%80",
  "%F0%9D%94",
  "%C3%28",
  "%E2%82",
  "%F8%88%80%80%80",
  "%EF%BF%BF",
  "%u0041",
  "%%",
  "%2F",
  "%2f",
  "%5C",
  "%2e%2e",
  "%0A",
  "%0D%0A",
  "%01",
  "%7F",
  "%20",
];
/** Other hostile text for a path segment or query value. */
const BAD_TEXT = [
  "..",
  ".",
  "-",
  "--upload-pack=x",
  "é",
  "𝔘",
  "'",
  '"',
  "<script>",
  "{}",
  "|",
  ";",
  "$(id)",
  "\\",
  "~",
  "*",
  ":",
  "@",
  "+",
  "=",
  "&",
  "0",
  "-1",
  "1e3",
  "9".repeat(40),
  "x".repeat(5000),
  "%41".repeat(800),
];
/** JSON values of the wrong type (or the right type with a hostile value) for any field. */
const WRONG_VALUES = [
  "null",
  "true",
  "0",
  "-1",
  "1e308",
  "-0",
  "1e999",
  "9007199254740993",
  '""',
  '"\\u0000"',
  '"\\u0001\\u001f\\u007f"',
  '"\\ud800"',
  '"%ZZ"',
  `"${"x".repeat(60_000)}"`,
  `"${"é".repeat(1000)}"`,
  "[]",
  '["bob"]',
  "{}",
  '{"toString":1}',
  '{"valueOf":1,"toString":1}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":1}}',
  "[[[[[[[[[[]]]]]]]]]]",
];

interface Route {
  method: string;
  /** Path segments; any of them may be fuzzed. */
  segments: string[];
  /** Well-formed bodies to mutate; none: the request has no body. */
  seeds?: Record<string, string>[];
  auth: "user" | "carol" | "admin" | "none";
}

serverTest(
  "hostile hosting fuzz: paths, queries and bodies of every hosting route, no 5xx",
  {},
  async (server) => {
    const { seed, next: rand, int, pick } = fuzzSeed();

    const { user: alice, token } = await signedIn(server, "alice");
    // Carol's token is the one DELETE /api/tokens/<id> is fuzzed with: ids it hits are hers.
    const carolToken = await login(server, await createUser(server, "carol"));
    await createRepo(server, token, "proj");
    const invites = await Promise.all([1, 2, 3].map(() => mintInvite(server)));
    const H = server.httpUrl;

    const json = (v: unknown) => JSON.stringify(v);
    const routes: Route[] = [
      { method: "GET", segments: ["api", "health"], auth: "none" },
      {
        method: "POST",
        segments: ["api", "signup"],
        auth: "none",
        seeds: invites.map((code, i) => ({
          username: json(`fuzz${i}`),
          public_key: json(alice.key.publicLine),
          invite_code: json(code),
        })),
      },
      {
        method: "POST",
        segments: ["api", "login", "challenge"],
        auth: "none",
        seeds: [{ username: json("alice") }],
      },
      {
        method: "POST",
        segments: ["api", "login", "verify"],
        auth: "none",
        seeds: [{
          username: json("alice"),
          nonce: json("a".repeat(64)),
          signature: json("-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"),
          expires_in_days: "7",
        }],
      },
      { method: "GET", segments: ["api", "user"], auth: "user" },
      { method: "POST", segments: ["api", "repos"], auth: "user", seeds: [{ name: json("fz") }] },
      { method: "GET", segments: ["api", "repos"], auth: "none" },
      { method: "GET", segments: ["api", "repos", "alice", "proj"], auth: "none" },
      { method: "DELETE", segments: ["api", "repos", "alice", "gone"], auth: "user", seeds: [{}] },
      { method: "GET", segments: ["api", "tokens"], auth: "user" },
      { method: "DELETE", segments: ["api", "tokens", "999999"], auth: "carol", seeds: [{}] },
      { method: "GET", segments: ["api", "admin", "info"], auth: "admin" },
      { method: "POST", segments: ["api", "admin", "invites"], auth: "admin", seeds: [{}] },
      { method: "GET", segments: ["api", "admin", "invites"], auth: "admin" },
      { method: "GET", segments: ["api", "admin", "users"], auth: "admin" },
      { method: "GET", segments: ["api", "admin", "users", "alice", "tokens"], auth: "admin" },
      { method: "DELETE", segments: ["api", "admin", "tokens", "999999"], auth: "admin" },
      { method: "GET", segments: ["api", "admin", "repos"], auth: "admin" },
      {
        method: "DELETE",
        segments: ["api", "admin", "repos", "alice", "gone"],
        auth: "admin",
        seeds: [{}],
      },
      { method: "GET", segments: ["api", "nothing"], auth: "none" },
      { method: "GET", segments: ["metrics"], auth: "admin" },
      { method: "GET", segments: [""], auth: "none" },
      { method: "GET", segments: ["admin"], auth: "none" },
      { method: "GET", segments: ["admin", "users"], auth: "none" },
      { method: "GET", segments: ["assets", "app.js"], auth: "none" },
      { method: "GET", segments: ["alice", "proj.git", "info", "refs"], auth: "none" },
    ];

    const segment = (s: string): string => {
      const bad = rand() < 0.6 ? pick(BAD_PERCENT) : pick(BAD_TEXT);
      switch (int(4)) {
        case 0:
          return bad;
        case 1:
          return s + bad;
        case 2:
          return bad + s;
        default:
          return s.slice(0, int(s.length + 1)) + bad + s.slice(int(s.length + 1));
      }
    };
    const path = (segments: string[]): string => {
      const out = [...segments];
      if (rand() < 0.7) {
        const n = 1 + int(2);
        for (let i = 0; i < n; i++) {
          // Mostly the last two segments (names, ids): a mangled "api" only finds the 404.
          const at = rand() < 0.8 ? Math.max(0, out.length - 1 - int(2)) : int(out.length);
          out[at] = segment(out[at]);
        }
      }
      if (rand() < 0.05) out.push(pick(BAD_PERCENT));
      if (rand() < 0.05) out.pop();
      return "/" + out.join("/");
    };
    const queryValue = () => rand() < 0.5 ? pick(BAD_PERCENT) : pick(BAD_TEXT);
    const query = (): string => {
      if (rand() < 0.4) return "";
      return "?" + pick([
        () => `owner=${queryValue()}`,
        () => `owner=alice${queryValue()}`,
        () => "owner=alice&owner=bob",
        () => `${queryValue()}=1`,
        () => "owner",
        () => "=",
        () => "&&&",
        () => `service=git-upload-pack${queryValue()}`,
        () => `service=${queryValue()}`,
        () => "service=git-receive-pack",
        () => `a=${"x".repeat(20_000)}`,
        () => `owner=${"%ZZ".repeat(2000)}`,
      ])();
    };
    const enc = new TextEncoder();
    const objectText = (fields: Record<string, string>) =>
      "{" + Object.entries(fields).map(([k, v]) => `${json(k)}:${v}`).join(",") + "}";
    const body = (seeds: Record<string, string>[]): Uint8Array => {
      const fields = { ...pick(seeds) };
      const keys = Object.keys(fields);
      switch (int(8)) {
        case 0:
          return crypto.getRandomValues(new Uint8Array(int(300)));
        case 1: {
          const text = enc.encode(objectText(fields));
          return text.subarray(0, int(text.length));
        }
        case 2:
          return new Uint8Array([...enc.encode('{"username":"'), 0xff, 0xc0, 0xaf, 0x22, 0x7d]);
        case 3:
          return enc.encode(
            pick([
              "",
              "null",
              "[]",
              '"x"',
              "1",
              "[".repeat(5000) + "]".repeat(5000),
              `{"a":"${"x".repeat(70_000)}"}`,
              '{"username":"alice","username":{"toString":1}}',
            ]),
          );
        default: {
          // Every field, or one, gets a value of the wrong type; sometimes an extra field.
          for (const k of keys) if (rand() < 0.5) fields[k] = pick(WRONG_VALUES);
          if (keys.length) fields[pick(keys)] = pick(WRONG_VALUES);
          if (rand() < 0.3) fields[pick(["extra", "__proto__", "constructor", "name"])] = "1";
          if (rand() < 0.2 && keys.length) delete fields[pick(keys)];
          return enc.encode(objectText(fields));
        }
      }
    };
    const garbageAuth = [
      "Bearer",
      "Bearer x",
      `Bearer SERVICE_${"0".repeat(64)}`,
      `Bearer ${token}x`,
      "Basic %%%",
      `Basic ${btoa("\xff\xfe:x")}`,
      `Basic ${btoa("nocolon")}`,
      `Basic ${btoa(`bob:${token}`)}`,
      "Token abc",
      `Bearer ${"a".repeat(10_000)}`,
      `bearer   ${token}   `,
      `Bearer ${server.adminKey.slice(1)}`,
    ];
    const auth = (kind: Route["auth"]): string | undefined => {
      if (rand() < 0.15) return pick(garbageAuth);
      if (kind === "user") return `Bearer ${token}`;
      if (kind === "carol") return `Bearer ${carolToken}`;
      if (kind === "admin") return `Bearer ${server.adminKey}`;
      return undefined;
    };
    const contentTypes = ["application/json", "application/json; charset=utf-8", "text/plain", ""];
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];

    const failures: string[] = [];
    const sendOne = async () => {
      const route = pick(routes);
      const method = rand() < 0.05 ? pick(methods) : route.method;
      const target = path(route.segments) + query();
      const headers: Record<string, string> = {};
      const authorization = auth(route.auth);
      if (authorization) headers.Authorization = authorization;
      const ct = pick(contentTypes);
      if (ct) headers["Content-Type"] = ct;
      const payload = route.seeds && method !== "GET" && method !== "HEAD"
        ? body(route.seeds) as Uint8Array<ArrayBuffer>
        : undefined;
      const res = await fetch(`${H}${target}`, { method, headers, body: payload });
      const text = await res.text();
      const where = `${method} ${target.slice(0, 200)} -> ${res.status} ${text.slice(0, 200)}`;
      if (res.status >= 500) {
        failures.push(`${where} body=${json(new TextDecoder().decode(payload).slice(0, 200))}`);
      } else if (res.status >= 400 && method !== "HEAD" && target.startsWith("/api/")) {
        let error: unknown;
        try {
          error = JSON.parse(text).error;
        } catch { /* checked below */ }
        if (typeof error !== "string") failures.push(`not a JSON error: ${where}`);
      }
      return res.status;
    };
    const { statuses, seconds } = await fuzzRequests(TOTAL, CONCURRENCY, sendOne);
    console.log(
      `hosting fuzz seed=${seed} requests=${TOTAL} in ${seconds.toFixed(1)} s; statuses ${
        json([...statuses].sort((a, b) => a[0] - b[0]))
      }`,
    );
    assertEquals(failures.slice(0, 10), [], `${failures.length} failures (seed ${seed})`);

    // Raw request targets no client library would send: control characters and raw bytes.
    const raw = [
      "GET /api/repos/a\x01b/x HTTP/1.1",
      "GET /api/repos?owner=\x7f HTTP/1.1",
      "GET /api/repos/a\tb/x HTTP/1.1",
      "GET /api/repos/a b/x HTTP/1.1",
      "GET /api/repos/%E0%A4%A/x HTTP/1.1",
      "GET /api/repos?owner=% HTTP/1.1",
      "GET //api//repos HTTP/1.1",
      "GET /api/repos/../../etc/passwd HTTP/1.1",
      "GET http://test/api/health HTTP/1.1",
      "GET * HTTP/1.1",
      "GET /alice/proj.git/info/refs?service=%C0%AF HTTP/1.1",
      "DELETE /api/tokens/%00 HTTP/1.1",
    ];
    const rawFailures: string[] = [];
    for (const line of raw) {
      for (const bytes of [line, line.replace("/api/repos/", "/api/repos/\xff\xfe")]) {
        const c = await RawHttp.open(server.httpPort);
        try {
          await c.send(
            Uint8Array.from(
              `${bytes}\r\nHost: test\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
              (ch) => ch.charCodeAt(0),
            ),
          );
          const res = await c.response(10_000).catch(() => null);
          if (res && res.status >= 500) rawFailures.push(`${json(bytes)} -> ${res.status}`);
        } finally {
          c.close();
        }
      }
    }
    assertEquals(rawFailures, []);

    const health = await fetch(`${H}/api/health`);
    assertEquals(health.status, 200, await health.text());
    const errors = errorLines(server);
    assertEquals(errors.slice(0, 5), [], "logged at error level");
    assert(statuses.size > 3, "the fuzz reached several outcomes");
  },
);
