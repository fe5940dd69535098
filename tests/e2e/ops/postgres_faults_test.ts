/**
 * PostgreSQL going away: a wrong or unreachable SERVICE_DATABASE_URL stops the start within 10 s
 * with a message naming host and port (never the password); a cluster stopped under load turns
 * requests into 503 JSON (no hang, no crash), health says so, the log says so once, and Signet
 * recovers by itself once the cluster is back (and logs it), with everything acknowledged before
 * still there.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { serveProcess, startTestServer } from "../../helpers/server.ts";
import { createRepo, createUser, login } from "../../../testing/accounts.ts";
import { ON_POSTGRES, startPostgres } from "../../../testing/postgres.ts";
import { freePort } from "../../../testing/ports.ts";
import { pollUntil } from "../../helpers/wait.ts";

// Each test brings its own PostgreSQL: run once, in the suite's SQLite run.
const SERVER_TEST = { sanitizeOps: false, sanitizeResources: false, ignore: ON_POSTGRES };

/** Calls `ask` up to `tries` times, 250 ms apart, until it answers `status`; the last answer. */
async function askUntil(
  ask: () => Promise<Response>,
  status: number,
  tries: number,
): Promise<Response> {
  for (let i = 1;; i++) {
    const res = await ask();
    if (res.status === status || i === tries) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 250));
  }
}

Deno.test({
  name: "an unreachable SERVICE_DATABASE_URL stops the start within 10 s, naming host and port",
  ...SERVER_TEST,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "signet-pg-down-" });
    const port = freePort(); // nothing listens there
    try {
      const started = performance.now();
      const child = serveProcess(dataDir, {
        SERVICE_DATABASE_URL: `postgres://signet:sup3rsecret@127.0.0.1:${port}/signet`,
      });
      const out = await child.output();
      const seconds = (performance.now() - started) / 1000;
      const stderr = new TextDecoder().decode(out.stderr);
      assert(!out.success, "the start fails");
      assert(seconds < 10 + 5, `failed after ${seconds.toFixed(1)} s`); // 5 s for deno to start
      assertStringIncludes(stderr, "SERVICE_DATABASE_URL");
      assertStringIncludes(stderr, `127.0.0.1:${port}`);
      assertStringIncludes(stderr, "refused");
      assert(!stderr.includes("sup3rsecret"), `the password is printed: ${stderr}`);
      // No admin key yet: the first start that works generates it, and says so.
      const left = [...Deno.readDirSync(dataDir)].map((e) => e.name);
      assert(!left.includes("admin_key"), `left behind: ${left.join(", ")}`);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "PostgreSQL stopped under load: 503 JSON, health says so, recovery by itself, nothing lost",
  ...SERVER_TEST,
  async fn() {
    const pg = await startPostgres({ own: true });
    const url = await pg.createDatabase();
    const server = await startTestServer({ env: { SERVICE_DATABASE_URL: url } });
    try {
      const alice = await createUser(server, "alice");
      const token = await login(server, alice);
      await createRepo(server, token, "kept");
      const reposOf = () =>
        fetch(`${server.httpUrl}/api/repos?owner=alice`, { signal: AbortSignal.timeout(20_000) });

      // Load in the background the whole time: it must never see a 500 or a hang.
      let stop = false;
      const statuses = new Map<number, number>();
      const load = (async () => {
        while (!stop) {
          const res = await reposOf();
          const body = await res.json();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert(res.status === 200 || res.status === 503, `status ${res.status}`);
          if (res.status === 200) assert(Array.isArray(body.repos));
          else assertEquals(typeof body.error, "string");
        }
      })();
      // The load must have been answered while the database is up, before it goes away.
      const oks = () => Promise.resolve(statuses.get(200) ?? 0);
      assert(await pollUntil(oks, (n) => n > 0, 20_000) > 0, "the load saw no 200 before the stop");

      await pg.stop();
      // Requests get a clean 503 (JSON, no hang) while the database is away.
      const down = await askUntil(reposOf, 503, 40);
      assertEquals(down.status, 503);
      assertStringIncludes((await down.json()).error, "database");
      const health = await fetch(`${server.httpUrl}/api/health`);
      assertEquals(health.status, 503);
      assertStringIncludes(JSON.stringify(await health.json()), "error");
      const signup = await fetch(`${server.httpUrl}/api/repos`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "while-down" }),
      });
      assertEquals(signup.status, 503);
      await signup.body?.cancel();

      await pg.start();
      const up = await askUntil(reposOf, 200, 80);
      assertEquals(up.status, 200);
      assertEquals((await up.json()).repos.map((r: { name: string }) => r.name), ["kept"]);
      assertEquals((await fetch(`${server.httpUrl}/api/health`)).status, 200);
      // And answered again after the recovery, by itself.
      const okBefore = await oks();
      assert(await pollUntil(oks, (n) => n > okBefore, 20_000) > okBefore, "no 200 after recovery");
      stop = true;
      await load;
      assert((statuses.get(503) ?? 0) > 0 && (statuses.get(200) ?? 0) > 0, [...statuses].join());
      // The log says when the database went away and when it was back (a line per change, not
      // per request).
      const log = server.logs();
      const wentAway = log.split("\n").filter((l) => l.includes("database unreachable"));
      assert(
        wentAway.length >= 1 && wentAway.length <= (statuses.get(503) ?? 0),
        log.slice(-5_000),
      );
      assertStringIncludes(wentAway[0], '"level":"error"');
      const back = log.lastIndexOf("database reachable again");
      assert(back > log.lastIndexOf("database unreachable"), "no line saying the database is back");
      // The process lived through it all.
      const again = await fetch(`${server.httpUrl}/api/repos/alice/kept`);
      assertEquals(again.status, 200);
      await again.body?.cancel();
    } finally {
      await server.stop();
      await pg.destroy();
    }
  },
});
