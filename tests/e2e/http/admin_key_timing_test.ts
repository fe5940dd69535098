/**
 * The admin key comparison must not leak where a guess goes wrong. A timing test of
 * constantTimeEqual against `===` in the same run (so the measurement is shown able to see the
 * leak), and the HTTP admin check: right key accepted, same-length keys wrong in the first or last
 * character refused, and the check goes through constantTimeEqual.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { constantTimeEqual } from "../../../protocol/secrets.ts";
import { requireAdmin } from "../../../server/http/auth.ts";
import { serverTest } from "../../helpers/server.ts";

const LENGTH = 64 * 1024;

/** A fresh (not interned) string of `n` random hex characters. */
function randomString(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n / 2));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `s` with the character at `i` replaced by a different one, as a new string. */
function flip(s: string, i: number): string {
  return s.slice(0, i) + (s[i] === "0" ? "1" : "0") + s.slice(i + 1);
}

/**
 * Median over `rounds` of (time of `batch` comparisons of guesses wrong late) / (same, wrong
 * early), the two measured back to back in alternating order so background load hits both. Each
 * batch cycles through distinct copies of its guess, so the JIT cannot hoist the comparison.
 */
function medianRatio(
  equal: (a: string, b: string) => boolean,
  secret: string,
  wrongAt: [early: number, late: number],
  batch: number,
  rounds: number,
): number {
  const copies = (at: number) => Array.from({ length: 4 }, () => flip(secret, at));
  const early = copies(wrongAt[0]);
  const late = copies(wrongAt[1]);
  let sink = 0;
  const time = (guesses: string[]) => {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) if (equal(guesses[i & 3], secret)) sink++;
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) time(early) + time(late); // warm up the JIT
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let e: number, l: number;
    if (r % 2) {
      e = time(early);
      l = time(late);
    } else {
      l = time(late);
      e = time(early);
    }
    ratios.push(l / Math.max(e, 1e-6));
  }
  assertEquals(sink, 0, "a wrong guess compared equal");
  ratios.sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)];
}

Deno.test("constantTimeEqual: time does not depend on where a guess differs (=== does)", () => {
  const secret = randomString(LENGTH);
  const at: [number, number] = [0, LENGTH - 1];
  // The same measurement sees the early exit of ===: a wrong last character costs a full scan.
  const naive = medianRatio((a, b) => a === b, secret, at, 400, 60);
  assert(naive > 3, `=== looked constant-time (ratio ${naive.toFixed(2)}): cannot measure`);
  const constant = medianRatio(constantTimeEqual, secret, at, 20, 100);
  console.log(
    `wrong last / wrong first character, median: === ${naive.toFixed(1)}x, ` +
      `constantTimeEqual ${constant.toFixed(2)}x`,
  );
  assert(
    constant > 0.75 && constant < 1.33,
    `constantTimeEqual: a wrong last character took ${constant.toFixed(2)}x a wrong first one`,
  );
  // And it is still an equality test.
  assert(constantTimeEqual(secret, secret.slice(0)));
  assert(!constantTimeEqual(secret, secret + "0"));
  assert(!constantTimeEqual("", "0"));
});

serverTest(
  "admin key over HTTP: exact key only; same-length near misses refused",
  {},
  async (server) => {
    // The middleware's comparison is constantTimeEqual (the test above covers that function).
    assert(
      /constantTimeEqual\(/.test(requireAdmin.toString()),
      "requireAdmin no longer compares with constantTimeEqual",
    );
    const key = server.adminKey;
    const status = async (path: string, value: string) => {
      const res = await fetch(`${server.httpUrl}${path}`, {
        headers: { Authorization: `Bearer ${value}` },
      });
      await res.body?.cancel();
      return res.status;
    };
    for (const path of ["/api/admin/users", "/metrics"]) {
      assertEquals(await status(path, key), 200, path);
      for (
        const wrong of [flip(key, 0), flip(key, key.length - 1), key.slice(0, -1), key + "0"]
      ) {
        assertEquals(await status(path, wrong), 401, `${path} with ${wrong}`);
      }
    }
  },
);
