/**
 * `signet db copy --to postgres://…` (issue 25): a real embedded (SQLite) server filled through the
 * API, git and the registry client is copied into a fresh PostgreSQL database; the SQLite file is
 * unchanged, and the server started on PostgreSQL serves everything as before. A non-empty target
 * is refused; a failed or killed copy leaves the target empty. Backup and restore on PostgreSQL:
 * tests/e2e/ops/postgres_backup_test.ts.
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, createUser, login, mintInvite } from "../../../testing/accounts.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { runOnPty } from "../../helpers/pty.ts";
import { MAIN, rawResponse as raw, runSignet as signet } from "../../helpers/cli.ts";
import { commitFile } from "../../helpers/git.ts";
import { serveProcess, startTestServer, type TestServer } from "../../helpers/server.ts";
import { signBody } from "../../../client/registry.ts";
import { verifyChain } from "../../../server/registry/audit.ts";
import { openSqliteStore } from "../../../db/sqlite/store.ts";
import { ON_POSTGRES, startPostgres } from "../../../testing/postgres.ts";

const SQLITE = { SERVICE_DATABASE_URL: "" }; // the embedded engine, whatever the environment says

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Row counts of every table signet keeps, and the nonce key, read straight from PostgreSQL. */
async function pgState(url: string): Promise<Record<string, string | number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const out: Record<string, string | number> = {};
    for (
      const t of [
        "users",
        "invites",
        "tokens",
        "challenges",
        "repos",
        "registry_bots",
        "registry_keys",
        "registry_capabilities",
        "registry_controllers",
        "registry_attestations",
        "registry_log",
        "registry_used_nonces",
        "registry_meta",
      ]
    ) {
      const [r] = await sql.unsafe(`SELECT count(*)::int AS n FROM ${t}`);
      out[t] = Number(r.n);
    }
    const [k] = await sql.unsafe("SELECT value FROM registry_meta WHERE name = 'nonce_key'");
    out.nonce_key = k?.value ?? "";
    return out;
  } finally {
    await sql.end();
  }
}

function sqliteNonceKey(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare("SELECT value FROM registry_meta WHERE name = 'nonce_key'").get() as {
      value: string;
    }).value;
  } finally {
    db.close();
  }
}

/** Everything observable that must survive the move, as exact response bytes. */
async function snapshot(server: TestServer, bots: string[]) {
  const admin = { Authorization: `Bearer ${server.adminKey}` };
  const out: Record<string, unknown> = {};
  for (const p of ["/api/admin/users", "/api/admin/invites", "/api/admin/repos", "/api/repos"]) {
    out[p] = await raw(`${server.httpUrl}${p}`, admin);
  }
  for (const b of bots) {
    for (const p of [`/v1/bots/${b}`, `/v1/bots/${b}/attestations`, `/v1/bots/${b}/log`]) {
      out[p] = await raw(`${server.registryUrl}${p}`);
    }
  }
  for (const q of ["?q=deploy", "?q=", "?capability=deploy", "?status=revoked", "?q=ops"]) {
    out[`/v1/search${q}`] = await raw(`${server.registryUrl}/v1/search${q}`);
  }
  out["/v1/log"] = await raw(`${server.registryUrl}/v1/log?after=0&limit=1000`);
  return out;
}

Deno.test({
  name: "db copy: an embedded install moves to PostgreSQL with everything intact",
  ignore: ON_POSTGRES, // each test brings its own PostgreSQL: run once
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const pg = await startPostgres();
    const dataDir = await Deno.makeTempDir({ prefix: "signet-dbcopy-" });
    const home = await Deno.makeTempDir();
    const env = gitEnv(home);
    const bots = ["alpha", "ops", "beta", "gamma"];
    let server = await startTestServer({ dataDir, env: SQLITE });
    try {
      // ---- fill the embedded server through the API, git and the registry client
      const alice = await createUser(server, "alice");
      const bob = await createUser(server, "bob");
      await mintInvite(server); // one left unused
      const tokenA = await login(server, alice);
      await login(server, bob);
      await createRepo(server, tokenA, "proj");
      await createRepo(server, tokenA, "empty");
      const work = `${home}/w`;
      const pushUrl = (s: TestServer, token: string) =>
        `http://alice:${token}@127.0.0.1:${s.httpPort}/alice/proj.git`;
      await runOk("git", ["init", "-q", "-b", "main", work], { env });
      const pushed = await commitFile(work, env, "f", "hello", "first", pushUrl(server, tokenA));

      const c = client(server.registryUrl);
      const [k1, k2, k3, k4] = await Promise.all(["k1", "k2", "k3", "k4"].map((id) => newKey(id)));
      await c.createBot({
        bot_id: "alpha",
        name: "Alpha Deployer",
        description: "Deploys things",
        keys: [k1.pub, k2.pub, k3.pub],
        capabilities: ["deploy", "git:push"],
        policy: {
          version: 1,
          default_threshold: 1,
          signers: { a: { key_id: "k1" }, b: { key_id: "k2" }, c: { key_id: "k3" } },
          rules: [{
            operation: "revoke_bot",
            threshold: 2,
            signers: ["a", "b", "c"],
            description: "two of three",
          }],
        },
      }, [k1.signer]);
      await c.addKey("alpha", k4.pub, [k1.signer]);
      await c.removeKey("alpha", "k2", [k1.signer], "lost");
      const c1 = await newKey("c1", "ops");
      await c.createBot({ bot_id: "ops", name: "Ops", keys: [c1.pub], capabilities: ["deploy"] }, [
        c1.signer,
      ]);
      const b1 = await newKey("b1", "beta");
      await c.createBot({
        bot_id: "beta",
        name: "Beta",
        keys: [b1.pub],
        controllers: [{ bot_id: "ops", label: "parent" }],
      }, [b1.signer]);
      await c.updateBot("beta", { description: "managed by ops" }, [c1.signer]);
      await c.attest({ issuer: "ops", subject: "beta", claim: "reviewed-by:ops" }, c1.signer);
      await c.attest({ issuer: "beta", subject: "ops", claim: "peer" }, b1.signer);
      const g1 = await newKey("g1", "gamma");
      await c.createBot({ bot_id: "gamma", name: "Gamma", keys: [g1.pub] }, [g1.signer]);
      await c.revokeBot("gamma", [g1.signer], "retired");
      // A nonce issued before the move, used after it: the nonce key must travel.
      const earlyNonce = await c.nonce();
      const logBefore = await c.log();
      assertEquals(verifyChain(logBefore), null);
      const before = await snapshot(server, bots);
      const ports = { http: server.httpPort, ssh: server.sshPort, registry: 0 };
      ports.registry = Number(new URL(server.registryUrl).port);
      // A copy while the embedded server serves would miss what it takes next: refused.
      const busy = await signet(["db", "copy", "--to", await pg.createDatabase()], {
        SERVICE_DATA_DIR: dataDir,
      });
      assertEquals(busy.code, 1, busy.stdout);
      assertStringIncludes(busy.stderr, "a Signet server is serving");
      assertStringIncludes(busy.stderr, "stop it first");
      assertEquals(await exists(`${dataDir}/signet.db.copied`), false);
      await server.stop();

      const dbFile = `${dataDir}/signet.db`;
      const hashBefore = await sha256(dbFile);
      const url = await pg.createDatabase();

      await t.step(
        "a server on PostgreSQL beside the uncopied embedded data refuses to start and writes nothing there",
        async () => {
          const out = await serveProcess(dataDir, { SERVICE_DATABASE_URL: url }).output();
          const stderr = new TextDecoder().decode(out.stderr);
          assertEquals(out.code, 2, stderr);
          assertStringIncludes(stderr, "holds an embedded data set that was never copied");
          assertStringIncludes(stderr, "(2 users, 2 repositories, 4 bots)");
          assertStringIncludes(stderr, 'signet db copy" with this SERVICE_DATABASE_URL');
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            const [r] = await sql.unsafe(
              "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
            );
            assertEquals(r.n, 0, "the start migrated the database");
          } finally {
            await sql.end();
          }
          assertEquals(await sha256(dbFile), hashBefore, "the SQLite file was changed");
        },
      );

      await t.step("the copy fills the empty database and verifies it", async () => {
        const started = performance.now();
        // The README's way: the target in SERVICE_DATABASE_URL, not on the command line.
        const r = await signet(["db", "copy"], {
          SERVICE_DATA_DIR: dataDir,
          SERVICE_DATABASE_URL: url,
        });
        const ms = Math.round(performance.now() - started);
        assertEquals(r.code, 0, r.stderr);
        console.log(`      db copy of the e2e data set: ${ms} ms\n${r.stdout}`);
        assertStringIncludes(r.stdout, "Audit chain verified: " + logBefore.length + " entries");
        assertStringIncludes(r.stdout, "users                  2 rows");
        assertStringIncludes(r.stdout, `SERVICE_DATABASE_URL=${url}`);
        assertStringIncludes(r.stderr, "copied registry_log:"); // progress, one line per table
        assertEquals(await sha256(dbFile), hashBefore, "the SQLite file was changed");
        const state = await pgState(url);
        assertEquals(state.users, 2);
        assertEquals(state.repos, 2);
        assertEquals(state.registry_bots, 4);
        assertEquals(state.registry_attestations, 2);
        assertEquals(state.registry_log, logBefore.length);
        assertEquals(state.registry_meta, 1);
        assertEquals(state.nonce_key, sqliteNonceKey(dbFile));
      });

      await t.step(
        "a second copy into the now non-empty target is refused and changes nothing",
        async () => {
          const state = await pgState(url);
          const r = await signet(["db", "copy", "--to", url], { SERVICE_DATA_DIR: dataDir });
          assertEquals(r.code, 1);
          assertStringIncludes(r.stderr, "the target database is not empty (rows in users");
          assertStringIncludes(r.stderr, "this file was copied before (signet db copy copied");
          assertEquals(await pgState(url), state);
        },
      );

      await t.step("signet on PostgreSQL serves the same data", async () => {
        server = await startTestServer({ dataDir, env: { SERVICE_DATABASE_URL: url }, ports });
        // Served from PostgreSQL: a write there does not touch the SQLite file.
        const after = await snapshot(server, bots);
        assertEquals(after, before);
        // The old token still works, and the old key logs in.
        const me = await raw(`${server.httpUrl}/api/user`, { Authorization: `Bearer ${tokenA}` });
        assertEquals(me.status, 200, me.body);
        assertStringIncludes(me.body, '"alice"');
        await login(server, alice);
        // Clone shows the pushed commit.
        const clone = `${home}/clone`;
        await runOk("git", ["clone", "-q", pushUrl(server, tokenA), clone], { env });
        assertEquals(
          (await runOk("git", ["rev-parse", "HEAD"], { cwd: clone, env })).trim(),
          pushed,
        );
        // The audit log verifies and is the same; the early nonce still signs a write.
        const c2 = client(server.registryUrl);
        const logAfter = await c2.log();
        assertEquals(logAfter, logBefore);
        assertEquals(verifyChain(logAfter), null);
        const current = await c2.getBot("beta");
        const body = await signBody({
          bot_id: "beta",
          keys: current.keys.map(({ key_id, algorithm, public_key, label }) => ({
            key_id,
            algorithm,
            public_key,
            label,
          })),
          description: "after the move",
        }, {
          method: "PATCH",
          path: "/v1/bots/beta",
          nonce: earlyNonce,
          signers: [b1.signer],
          targetBot: "beta",
        });
        const patched = await c2.raw("PATCH", "/v1/bots/beta", JSON.stringify(body));
        assertEquals(patched.status, 200, JSON.stringify(patched.body));
        // New rows get ids past the copied ones (identity counters were moved).
        const carol = await createUser(server, "carol");
        assertEquals(carol.id, 3);
        await createRepo(server, await login(server, carol), "third");
        const g2 = await newKey("g2", "delta");
        await c2.createBot({ bot_id: "delta", keys: [g2.pub] }, [g2.signer]);
        await c2.attest({ issuer: "ops", subject: "delta", claim: "new" }, c1.signer);
        assertEquals(verifyChain(await c2.log()), null);
        // A backup that forgets the URL would copy the stale SQLite file: refused while it runs.
        const stale = await signet(["backup", `${home}/stale-backup`], {
          SERVICE_DATA_DIR: dataDir,
          ...SQLITE,
        });
        assertEquals(stale.code, 1, stale.stdout);
        assertStringIncludes(stale.stderr, "instances on PostgreSQL are serving");
        await server.stop();
        assertEquals(await sha256(dbFile), hashBefore, "the SQLite file was changed");
      });

      await t.step(
        "with every server stopped, the copy's note still guards the stale file",
        async () => {
          const note = await Deno.readTextFile(`${dataDir}/signet.db.copied`);
          assertStringIncludes(note, `to ${url} at `);
          const stale = await signet(["backup", `${home}/stale-backup-2`], {
            SERVICE_DATA_DIR: dataDir,
            ...SQLITE,
          });
          assertEquals(stale.code, 1, stale.stdout);
          assertStringIncludes(stale.stderr, "may be stale");
          assertStringIncludes(stale.stderr, "signet.db.copied");
          assertEquals(await exists(`${home}/stale-backup-2/signet.db`), false);
          // A server started on the embedded file says which database it serves.
          server = await startTestServer({ dataDir, env: SQLITE, ports });
          assertStringIncludes(server.logs(), "which was copied to PostgreSQL");
          // A repository with history that only PostgreSQL knows is kept, not made anew.
          const pgOnly = `${dataDir}/repos/alice/pgonly.git`;
          await runOk("cp", ["-r", `${dataDir}/repos/alice/proj.git`, pgOnly]);
          const made = await fetch(`${server.httpUrl}/api/repos`, {
            method: "POST",
            headers: { Authorization: `Bearer ${tokenA}`, "Content-Type": "application/json" },
            body: JSON.stringify({ name: "pgonly" }),
          });
          const why = await made.text();
          assertEquals(made.status, 409, why);
          assertStringIncludes(why, "exists on disk with history but not in this database");
          assertEquals(
            (await runOk("git", ["--git-dir", pgOnly, "rev-parse", "main"], { env })).trim(),
            pushed,
          );
          await server.stop();
          await Deno.remove(pgOnly, { recursive: true });
          // The same database written another way (localhost, not 127.0.0.1): no warning.
          server = await startTestServer({
            dataDir,
            env: { SERVICE_DATABASE_URL: url.replace("127.0.0.1", "localhost") },
            ports,
          });
          assert(!server.logs().includes("copied to another database"), server.logs());
          await server.stop();
          // One started on another database than the copy's (a mistyped name) says so too.
          const other = await pg.createDatabase();
          server = await startTestServer({ dataDir, env: { SERVICE_DATABASE_URL: other }, ports });
          assertStringIncludes(server.logs(), "copied to another database than this one");
          await server.stop();
          // Deleting the note is the way to back the file up anyway.
          await Deno.remove(`${dataDir}/signet.db.copied`);
          const kept = await signet(["backup", `${home}/stale-backup-3`], {
            SERVICE_DATA_DIR: dataDir,
            ...SQLITE,
          });
          assertEquals(kept.code, 0, kept.stderr);
          assertStringIncludes(kept.stdout, "Backed up the database and 2 repositories");
        },
      );
    } finally {
      await server.stop();
      await pg.destroy();
    }
  },
});

Deno.test({
  name: "db copy: a failed or killed copy leaves the target empty",
  ignore: ON_POSTGRES, // each test brings its own PostgreSQL: run once
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pg = await startPostgres();
    try {
      // A large-ish source: a few rows everywhere early, 200 000 used nonces late in the order.
      const dataDir = await Deno.makeTempDir({ prefix: "signet-dbcopy-big-" });
      const dbFile = `${dataDir}/signet.db`;
      const store = await openSqliteStore(dbFile);
      await store.users.insert("alice", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA alice");
      await store.close();
      const db = new DatabaseSync(dbFile);
      db.exec("BEGIN");
      const ins = db.prepare("INSERT INTO registry_used_nonces (nonce, expires_ms) VALUES (?, ?)");
      for (let i = 0; i < 200_000; i++) ins.run(`n${String(i).padStart(8, "0")}`, 4e12 + i);
      db.exec("COMMIT");
      // One row PostgreSQL refuses, after users are in: a key of a bot that does not exist
      // (SQLite checks foreign keys per connection; this one does not).
      db.exec("PRAGMA foreign_keys = OFF");
      db.prepare("INSERT INTO registry_keys VALUES ('ghost', 'k1', 'x', 'active')").run();
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
      const empty = (state: Record<string, string | number>) => {
        for (const [k, v] of Object.entries(state)) {
          if (k === "nonce_key") continue;
          assertEquals(v, k === "registry_meta" ? 1 : 0, k);
        }
        assert(state.nonce_key !== sqliteNonceKey(dbFile), "the source's nonce key got in");
      };

      // A failure mid-copy (the bad row) rolls everything back.
      const failed = await pg.createDatabase();
      const r = await signet(["db", "copy", "--to", failed], { SERVICE_DATA_DIR: dataDir });
      assertEquals(r.code, 1, r.stdout);
      assertStringIncludes(r.stderr, "copied users: 1 row\n"); // users were already in
      assertStringIncludes(r.stderr, "registry_keys");
      assertStringIncludes(r.stderr, "left as it was");
      empty(await pgState(failed));

      // Killed right after the first table is in: nothing is committed either.
      const rw = new DatabaseSync(dbFile);
      rw.exec("DELETE FROM registry_keys WHERE bot_id = 'ghost'");
      rw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      rw.close();
      const killed = await pg.createDatabase();
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "db", "copy", "--to", killed],
        env: { SERVICE_DATA_DIR: dataDir },
        stdout: "null",
        stderr: "piped",
      }).spawn();
      let seen = "";
      const dec = new TextDecoder();
      for await (const chunk of child.stderr) {
        seen += dec.decode(chunk, { stream: true });
        if (seen.includes("copied users")) break;
      }
      child.kill("SIGKILL");
      const status = await child.status;
      assertEquals(status.success, false, "the copy finished before it could be killed");
      empty(await pgState(killed));

      // The same source copies completely into a fresh database.
      const whole = await pg.createDatabase();
      const started = performance.now();
      // On a terminal, progress counts the rows of each table as they go in.
      const ok = await runOnPty(
        Deno.execPath(),
        ["run", "-A", MAIN, "db", "copy", "--to", whole],
        [],
        {
          env: { SERVICE_DATA_DIR: dataDir },
          timeoutMs: 120_000,
        },
      );
      assertEquals(ok.code, 0, ok.output);
      assertStringIncludes(ok.output, "copying registry_used_nonces: 500 of 200000 rows");
      assertStringIncludes(ok.output, "copying registry_used_nonces: 200000 of 200000 rows");
      assertStringIncludes(ok.output, "Audit chain verified: 0 entries.");
      console.log(
        `      db copy of 200 000 rows: ${Math.round(performance.now() - started)} ms`,
      );
      const state = await pgState(whole);
      assertEquals(state.registry_used_nonces, 200_000);
      assertEquals(state.users, 1);
      assertEquals(state.nonce_key, sqliteNonceKey(dbFile));
    } finally {
      await pg.destroy();
    }
  },
});
