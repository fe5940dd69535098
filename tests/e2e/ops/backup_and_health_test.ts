/** Operations: backup/restore, graceful shutdown, health, metrics, migrations, secret-free logs. */
import { ON_POSTGRES } from "../../../testing/postgres.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  createRepo,
  createUser,
  login,
  mintInvite,
  postJson,
  sshSign,
  userWithRepo,
} from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { serverTest, startTestServer } from "../../helpers/server.ts";
import { openDatabase } from "../../../db/sqlite/database.ts";
import { MIGRATIONS } from "../../../db/sqlite/migrations/index.ts";
import { commitFile } from "../../helpers/git.ts";
import { runSignet as signet } from "../../helpers/cli.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
import { databaseAt } from "../../helpers/old_database.ts";

// Backs up the embedded database file; SQLite's run only (see testing/postgres.ts).
serverTest("backup while serving, push more, restore gives exactly the backed-up state", {
  ignore: ON_POSTGRES,
}, async (server) => {
  const home = await Deno.makeTempDir();
  const env = gitEnv(home);
  const { user: alice, token } = await userWithRepo(server, "alice", "data");
  const url = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/data.git`;
  const work = `${home}/w`;
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  const commitPush = (msg: string) => commitFile(work, env, "f", msg, msg, url);
  await commitPush("one");
  const backedUp = await commitPush("two");
  const backupDir = `${await Deno.makeTempDir()}/snap`;
  const b = await signet(["backup", backupDir], { SERVICE_DATA_DIR: server.dataDir });
  assertEquals(b.code, 0, b.stderr);
  assertStringIncludes(b.stdout, "1 repository ");
  const mode = (await Deno.stat(`${backupDir}/signet.db`)).mode! & 0o777;
  assertEquals(mode, 0o600, "the backed-up database is readable by others");
  const after = await commitPush("three");
  assert(after !== backedUp);
  await createUser(server, "bob"); // after the backup: must not come back
  await server.stop();

  // Restore refuses a non-empty data dir, and works into an empty one.
  const refused = await signet(["restore", backupDir], { SERVICE_DATA_DIR: server.dataDir });
  assertEquals(refused.code, 1);
  const restoredDir = await Deno.makeTempDir();
  const r = await signet(["restore", backupDir], { SERVICE_DATA_DIR: restoredDir });
  assertEquals(r.code, 0, r.stderr);
  const repo = `${restoredDir}/repos/alice/data.git`;
  assertEquals(
    (await runOk("git", ["--git-dir", repo, "rev-parse", "main"], { env })).trim(),
    backedUp,
  );
  const fsck = await run("git", ["--git-dir", repo, "fsck", "--strict"], { env });
  assertEquals(fsck.code, 0, fsck.stderr);

  const restored = await startTestServer({ dataDir: restoredDir });
  const users = await (await fetch(`${restored.httpUrl}/api/admin/users`, {
    headers: { Authorization: `Bearer ${restored.adminKey}` },
  })).json();
  assertEquals(users.users.map((u: { username: string }) => u.username), ["alice"]);
  const clone = `${home}/clone`;
  await runOk("git", ["clone", "-q", `${restored.httpUrl}/alice/data.git`, clone], { env });
  assertEquals((await runOk("git", ["rev-parse", "HEAD"], { cwd: clone, env })).trim(), backedUp);
  // The restored account still logs in with its key.
  await login(restored, alice);
  await restored.stop();
});

serverTest("health, metrics, graceful shutdown, and no secrets in logs", {}, async (server) => {
  const health = await fetch(`${server.httpUrl}/api/health`);
  assertEquals(health.status, 200);
  assertEquals((await health.json()).status, "ok");

  // A full flow whose secrets must never reach the log.
  const code = await mintInvite(server);
  const alice = await createUser(server, "alice");
  const nonce = (await postJson(`${server.httpUrl}/api/login/challenge`, { username: "alice" }))
    .body
    .nonce as string;
  const signature = await sshSign(alice.key, nonce);
  const v = await postJson(`${server.httpUrl}/api/login/verify`, {
    username: "alice",
    nonce,
    signature,
  });
  const token = v.body.token as string;
  await createRepo(server, token, "x");
  const home = await Deno.makeTempDir();
  const env = gitEnv(home);
  await runOk("git", ["init", "-q", "-b", "main", `${home}/w`], { env });
  await runOk("git", ["commit", "-q", "--allow-empty", "-m", "m"], { cwd: `${home}/w`, env });
  await runOk("git", [
    "push",
    "-q",
    `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/x.git`,
    "main",
  ], {
    cwd: `${home}/w`,
    env,
  });

  const noAuth = await fetch(`${server.httpUrl}/metrics`);
  assertEquals(noAuth.status, 401);
  await noAuth.body?.cancel();
  const metrics = await (await fetch(`${server.httpUrl}/metrics`, {
    headers: { Authorization: `Bearer ${server.adminKey}` },
  })).text();
  assertStringIncludes(metrics, "# TYPE signet_http_requests_total counter");
  assertStringIncludes(
    metrics,
    'signet_git_transfers_total{outcome="ok",service="git-receive-pack",transport="http"} 1',
  );
  assertStringIncludes(metrics, 'signet_logins_total{outcome="ok"}');
  for (const gauge of ["resident_memory", "heap_used", "heap_total", "external_memory"]) {
    const value = Number(new RegExp(`^signet_${gauge}_bytes (\\d+)$`, "m").exec(metrics)?.[1]);
    assert(value > 0, `signet_${gauge}_bytes missing or zero`);
  }

  // Health turns 503 when the repository directory disappears.
  await Deno.rename(`${server.dataDir}/repos`, `${server.dataDir}/repos-away`);
  const sick = await fetch(`${server.httpUrl}/api/health`);
  assertEquals(sick.status, 503);
  assertEquals((await sick.json()).status, "unavailable");
  await Deno.rename(`${server.dataDir}/repos-away`, `${server.dataDir}/repos`);

  await server.stop();
  const logs = server.logs();
  assertStringIncludes(logs, '"msg":"stopped"');
  assertStringIncludes(logs, '"msg":"http request"');
  for (
    const secret of [
      token,
      token.slice(8),
      nonce,
      server.adminKey,
      code,
      signature.split("\n")[1],
    ]
  ) {
    assertEquals(logs.includes(secret), false, "a secret reached the log");
  }
  // The WAL was checkpointed into the main file on shutdown.
  const wal = await Deno.stat(`${server.dataDir}/signet.db-wal`).then((s) => s.size, () => 0);
  assertEquals(wal, 0);
});

Deno.test("a database created by the first migration set upgrades to the current schema", async () => {
  const { path, old } = await databaseAt(1);
  old.prepare(
    "INSERT INTO users (username, public_key, created_at) VALUES ('old', 'ssh-ed25519 AAAA', 'x')",
  )
    .run();
  old.close();
  const db = openDatabase(path);
  const version =
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  assertEquals(version, MIGRATIONS.length);
  assertEquals(
    (db.prepare("SELECT username FROM users").get() as { username: string }).username,
    "old",
  );
  db.close();
});

Deno.test("signet version, help and serve --help list every command and server env var", async () => {
  const version = await signet(["version"], {});
  assertEquals(version.code, 0);
  assert(/^signet \d+\.\d+\.\d+/.test(version.stdout));
  const help = await signet(["help"], {});
  for (
    const cmd of [
      "serve",
      "backup",
      "restore",
      "bot",
      "init",
      "register",
      "login",
      "whoami",
      "repo",
      "clone",
      "credential",
      "version",
    ]
  ) {
    assertStringIncludes(help.stdout, `  ${cmd}`);
  }
  const serveHelp = await signet(["serve", "--help"], {});
  const vars = new Set<string>();
  for (
    const file of [
      "server/config.ts",
      "server/serve.ts",
      "server/ratelimit.ts",
      "server/domain/git.ts",
    ]
  ) {
    for (const m of (await Deno.readTextFile(`${ROOT}${file}`)).matchAll(/SERVICE_[A-Z_]+[A-Z]/g)) {
      vars.add(m[0]);
    }
  }
  vars.delete("SERVICE_RATE_LIMIT_");
  for (const v of vars) assertStringIncludes(serveHelp.stdout, v);
  assertEquals((await signet(["nonsense"], {})).code, 2);
});
