/**
 * The client end to end against a real server, real git and a temp HOME: init → register →
 * login → whoami → repo new/list/delete → signet clone → commit → plain git push → second clone.
 */
import assert from "node:assert/strict";
import { credentialHelperValue, selfCommand } from "../../../client/self.ts";
import { run } from "../../../testing/run.ts";
import { mintInvite } from "../../../testing/accounts.ts";
import { cliUser, git, readConfig, signet, signetOk } from "../../helpers/cli.ts";
import { serverTest } from "../../helpers/server.ts";

/** Asserts that `text` contains `part`, showing both otherwise. */
function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in:\n${text}`);
}

serverTest("signet client: from init to a pushed commit another clone sees", {}, async (server) => {
  const alice = await cliUser(server);

  // init: stores the host, creates the missing key when asked to.
  const init = await signetOk(alice, ["init", "--create-key"]);
  includes(init, `Host: ${server.httpUrl}`);
  assert.match(
    init,
    /SSH key: .*\.ssh\/id_ed25519 \(SHA256:.*\), created now without a passphrase\n/,
  );
  assert.deepEqual((await Deno.stat(`${alice.home}/.ssh/id_ed25519`)).mode! & 0o777, 0o600);
  // Run again, the key is the one already there.
  assert.match(await signetOk(alice, ["init"]), /SSH key: .*\.ssh\/id_ed25519 \(SHA256:[^)]*\)\n/);

  // register with an invite: the username is stored, no token yet.
  const invite = await mintInvite(server);
  const reg = await signetOk(alice, ["register", "alice", "--invite", invite]);
  includes(reg, "Registered alice");
  assert.deepEqual((await readConfig(alice)).username, "alice");
  assert.deepEqual((await readConfig(alice)).token, undefined);

  // login: token, username and host in a 0600 file in a 0700 dir.
  const login = await signetOk(alice, ["login"]);
  includes(login, "Logged in as alice");
  includes(login, "via key file");
  const config = await readConfig(alice);
  assert.match(config.token!, /^SERVICE_[0-9a-f]{64}$/);
  assert.deepEqual(config.host, server.httpUrl);
  assert.deepEqual((await Deno.stat(alice.configFile)).mode! & 0o777, 0o600);
  assert.deepEqual((await Deno.stat(`${alice.home}/.config/signet`)).mode! & 0o777, 0o700);
  assert.ok(!login.includes(config.token!), "login must not print the token");

  assert.deepEqual(await signetOk(alice, ["whoami"]), "alice\n");
  const me = JSON.parse(await signetOk(alice, ["whoami", "--json"]));
  assert.deepEqual(me.username, "alice");
  assert.deepEqual(me.host, server.httpUrl);

  // repo new / list / delete
  const created = await signetOk(alice, ["repo", "new", "proj"]);
  includes(created, "Created alice/proj");
  // Each clone URL is printed as it is, under its own scheme (this server is plain HTTP).
  includes(created, `\n  http:  ${server.httpUrl}/alice/proj.git\n`);
  includes(created, `\n  ssh:   ssh://git@127.0.0.1:${server.sshPort}/alice/proj.git\n`);
  assert.ok(!created.includes("https"), created);
  const scratch = JSON.parse(await signetOk(alice, ["repo", "new", "scratch", "--json"]));
  assert.deepEqual(scratch.clone_urls.http, `${server.httpUrl}/alice/scratch.git`);
  assert.deepEqual(await signetOk(alice, ["repo", "list"]), "alice/proj\nalice/scratch\n");
  const refused = await signet(alice, ["repo", "delete", "scratch"]);
  assert.deepEqual(refused.code, 2, "delete without --yes off a terminal is a usage error");
  includes(refused.stderr, "--yes");
  includes(
    await signetOk(alice, ["repo", "delete", "scratch", "--yes"]),
    "Deleted alice/scratch",
  );
  const listed = JSON.parse(await signetOk(alice, ["repo", "list", "alice", "--json"]));
  assert.deepEqual(listed.map((r: { name: string }) => r.name), ["proj"]);

  // signet clone configures the helper; a plain git push then needs no token from anyone.
  await signetOk(alice, ["clone", "alice/proj"]);
  const work = `${alice.home}/proj`;
  const helpers = (await git(alice, ["config", "--get-all", "credential.helper"], { cwd: work }))
    .stdout.split("\n");
  assert.deepEqual(helpers[0], "", "the helper list is reset first");
  // The test runs the same deno and checkout as the CLI did, so the value is predictable: the
  // client commands bundled into one file (client/self.ts).
  assert.equal(helpers[1], credentialHelperValue());
  assert.match(
    helpers[1],
    /^!\S+deno run -A --quiet --no-config \S+client\/generated\/signet_client\.js credential$/,
  );
  assert.deepEqual(
    (await git(alice, ["config", "credential.useHttpPath"], { cwd: work })).stdout.trim(),
    "true",
  );
  await Deno.writeTextFile(`${work}/README.md`, "hello from alice\n");
  await git(alice, ["add", "README.md"], { cwd: work });
  assert.deepEqual((await git(alice, ["commit", "-m", "first"], { cwd: work })).code, 0);
  const push = await git(alice, ["push", "origin", "HEAD:refs/heads/main"], { cwd: work });
  assert.deepEqual(push.code, 0, push.stderr);
  const pushed = (await git(alice, ["rev-parse", "HEAD"], { cwd: work })).stdout.trim();

  // a second clone (plain, anonymous) sees the commit
  const other = await cliUser(server);
  const second = await git(other, ["clone", `${server.httpUrl}/alice/proj.git`, "copy"]);
  assert.deepEqual(second.code, 0, second.stderr);
  const seen = (await git(other, ["rev-parse", "HEAD"], { cwd: `${other.home}/copy` })).stdout;
  assert.deepEqual(seen.trim(), pushed);
  assert.deepEqual(await Deno.readTextFile(`${other.home}/copy/README.md`), "hello from alice\n");

  // signet clone run as the helper runs (the bundle) names the same helper: the bundle finds the
  // checkout it lives in.
  const [program, ...self] = selfCommand();
  const again = await run(program, [...self, "clone", "alice/proj", "again"], {
    cwd: alice.home,
    env: alice.env,
  });
  assert.deepEqual(again.code, 0, again.stderr);
  const againHelpers = await git(alice, ["config", "--get-all", "credential.helper"], {
    cwd: `${alice.home}/again`,
  });
  assert.deepEqual(againHelpers.stdout.split("\n")[1], credentialHelperValue());

  // the token never reached git's config or any log
  const gitConfig = await Deno.readTextFile(`${work}/.git/config`);
  const token = (await readConfig(alice)).token!;
  assert.ok(!gitConfig.includes("SERVICE_"), "no token in the clone's config");
  assert.ok(!server.logs().includes(token), "the token is not logged by the server");
});
