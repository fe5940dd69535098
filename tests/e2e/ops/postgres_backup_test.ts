/**
 * Backup and restore on PostgreSQL (`signet backup` runs pg_dump into the backup dir, `signet
 * restore` fills an empty database), and a PostgreSQL URL with a password: db copy and backup work
 * and never print it. The move from SQLite is tests/e2e/ops/db_copy_test.ts.
 */
import postgres from "postgres";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, createUser, login } from "../../../testing/accounts.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { rawResponse as raw, runSignet as signet } from "../../helpers/cli.ts";
import { commitFile } from "../../helpers/git.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { verifyChain } from "../../../server/registry/audit.ts";
import { openSqliteStore } from "../../../db/sqlite/store.ts";
import { ON_POSTGRES, PASSWORD_ROLE, startPostgres } from "../../../testing/postgres.ts";

Deno.test({
  name:
    "backup and restore on PostgreSQL: pg_dump into the backup dir, restore into an empty database",
  ignore: ON_POSTGRES, // each test brings its own PostgreSQL: run once
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pg = await startPostgres();
    const home = await Deno.makeTempDir();
    const env = gitEnv(home);
    const url = await pg.createDatabase();
    const dataDir = await Deno.makeTempDir({ prefix: "signet-pgbackup-" });
    let server = await startTestServer({ dataDir, env: { SERVICE_DATABASE_URL: url } });
    try {
      const alice = await createUser(server, "alice");
      const token = await login(server, alice);
      await createRepo(server, token, "proj");
      const work = `${home}/w`;
      const repoUrl = (s: TestServer) =>
        `http://alice:${token}@127.0.0.1:${s.httpPort}/alice/proj.git`;
      await runOk("git", ["init", "-q", "-b", "main", work], { env });
      const pushed = await commitFile(work, env, "f", "hello", "first", repoUrl(server));
      const c = client(server.registryUrl);
      const k = await newKey("k1", "bot1");
      await c.createBot({ bot_id: "bot1", name: "Bot One", keys: [k.pub] }, [k.signer]);
      const botBefore = await raw(`${server.registryUrl}/v1/bots/bot1`);

      const backupDir = `${await Deno.makeTempDir()}/snap`;
      const b = await signet(["backup", backupDir], {
        SERVICE_DATA_DIR: dataDir,
        SERVICE_DATABASE_URL: url,
      });
      assertEquals(b.code, 0, b.stderr);
      assertStringIncludes(b.stdout, "1 repository ");
      assert((await Deno.stat(`${backupDir}/signet.pgdump`)).size > 0);
      assertEquals((await Deno.stat(`${backupDir}/signet.pgdump`)).mode! & 0o777, 0o600);
      await Deno.stat(`${backupDir}/repos/alice/proj.git/HEAD`);
      await server.stop();

      // Refused: a database that already has tables (changes nothing), a SQLite-mode restore.
      const emptyDir = await Deno.makeTempDir();
      const refused = await signet(["restore", backupDir], {
        SERVICE_DATA_DIR: emptyDir,
        SERVICE_DATABASE_URL: url,
      });
      assertEquals(refused.code, 1);
      assertStringIncludes(refused.stderr, "is not empty");
      const sqliteMode = await signet(["restore", backupDir], { SERVICE_DATA_DIR: emptyDir });
      assertEquals(sqliteMode.code, 1);
      assertStringIncludes(sqliteMode.stderr, "PostgreSQL backup");

      // Restore into a fresh database and an empty data dir, start, find everything.
      const url2 = await pg.createDatabase();
      const r = await signet(["restore", backupDir], {
        SERVICE_DATA_DIR: emptyDir,
        SERVICE_DATABASE_URL: url2,
      });
      assertEquals(r.code, 0, r.stderr);
      server = await startTestServer({ dataDir: emptyDir, env: { SERVICE_DATABASE_URL: url2 } });
      const me = await raw(`${server.httpUrl}/api/user`, { Authorization: `Bearer ${token}` });
      assertEquals(me.status, 200, me.body);
      await login(server, alice);
      const clone = `${home}/clone`;
      await runOk("git", ["clone", "-q", repoUrl(server), clone], { env });
      assertEquals((await runOk("git", ["rev-parse", "HEAD"], { cwd: clone, env })).trim(), pushed);
      assertEquals(await raw(`${server.registryUrl}/v1/bots/bot1`), botBefore);
      assertEquals(verifyChain(await client(server.registryUrl).log()), null);
    } finally {
      await server.stop();
      await pg.destroy();
    }
  },
});

Deno.test({
  name: "db copy and PostgreSQL backup with a password: it works and is never shown",
  // A shared cluster (SERVICE_TEST_POSTGRES_URL) is not given a password role.
  ignore: ON_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pg = await startPostgres();
    try {
      const password = "s3cret:p@ss/word";
      const db = `pw_${Date.now().toString(36)}`;
      const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD '${password}'`);
        await admin.unsafe(`CREATE DATABASE ${db} OWNER ${PASSWORD_ROLE}`);
      } finally {
        await admin.end();
      }
      const base = new URL(pg.url(db));
      base.username = PASSWORD_ROLE;
      base.password = encodeURIComponent(password);
      const url = base.toString();
      const dataDir = await Deno.makeTempDir({ prefix: "signet-dbcopy-pw-" });
      const store = await openSqliteStore(`${dataDir}/signet.db`);
      await store.users.insert("alice", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA alice");
      await store.close();
      const hidden = (r: { stdout: string; stderr: string }) => {
        for (const part of [password, encodeURIComponent(password)]) {
          assert(!r.stdout.includes(part) && !r.stderr.includes(part), r.stdout + r.stderr);
        }
      };
      const copy = await signet(["db", "copy", "--to", url], { SERVICE_DATA_DIR: dataDir });
      assertEquals(copy.code, 0, copy.stderr);
      hidden(copy);
      assertStringIncludes(copy.stdout, `${PASSWORD_ROLE}@127.0.0.1`);
      const wrong = new URL(url);
      wrong.password = "nope";
      const refused = await signet(["db", "copy", "--to", wrong.toString()], {
        SERVICE_DATA_DIR: dataDir,
      });
      assertEquals(refused.code, 1);
      assertStringIncludes(refused.stderr, "password authentication failed");
      const backupDir = `${await Deno.makeTempDir()}/snap`;
      // A backup that fails (here pg_dump, on a wrong password) leaves no half-made directory.
      const failed = await signet(["backup", backupDir], {
        SERVICE_DATA_DIR: dataDir,
        SERVICE_DATABASE_URL: wrong.toString(),
      });
      assertEquals(failed.code, 1, failed.stderr);
      hidden(failed);
      assertEquals(await Deno.stat(backupDir).then(() => "left", () => "gone"), "gone");
      const b = await signet(["backup", backupDir], {
        SERVICE_DATA_DIR: dataDir,
        SERVICE_DATABASE_URL: url,
      });
      assertEquals(b.code, 0, b.stderr);
      hidden(b);
      assert((await Deno.stat(`${backupDir}/signet.pgdump`)).size > 0);
    } finally {
      await pg.destroy();
    }
  },
});
