/**
 * The client's command-line contract: help, exit codes 0/1/2, config location and errors that
 * change nothing, plus the prompts it shows on a terminal.
 */
import assert from "node:assert/strict";
import { mintInvite } from "../../../testing/accounts.ts";
import { cliUser, MAIN, readConfig, signet, signetOk } from "../../helpers/cli.ts";
import { runOnPty } from "../../helpers/pty.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest("signet client commands", {}, async (server, t) => {
  await t.step("help lists the client commands and explains each", async () => {
    const user = await cliUser(server);
    const main = await signetOk(user, ["help"]);
    for (const cmd of ["init", "register", "login", "whoami", "repo", "clone", "credential"]) {
      assert.match(main, new RegExp(`^  ${cmd} `, "m"));
    }
    assert.match(await signetOk(user, ["help", "login"]), /^Usage: signet login \[username\]/);
    assert.match(await signetOk(user, ["repo", "--help"]), /signet repo delete <name> \[--yes\]/);
    assert.match(await signetOk(user, ["help", "serve"]), /SERVICE_HTTP_BIND/);
    const unknown = await signet(user, ["help", "nope"]);
    assert.equal(unknown.code, 2);
  });

  await t.step("usage errors exit 2 and say what is wrong", async () => {
    const user = await cliUser(server);
    const cases: [string[], RegExp][] = [
      [["repo"], /missing subcommand/],
      [["repo", "frob"], /unknown subcommand "frob"/],
      [["repo", "new"], /missing repository name/],
      [["repo", "new", "../etc"], /repository name must be/],
      [["whoami", "--bogus"], /unknown option --bogus/],
      [["whoami", "extra"], /unexpected argument "extra"/],
      [["register"], /no username given/],
      [["register", "Bad Name", "--invite", "inv_x"], /invalid username/],
      [["register", "carol"], /no invite code given/],
      [["register", "carol", "--invite"], /--invite needs a value/],
      [["clone"], /missing repository/],
      [["clone", "a/b/c"], /expected <user>\/<repo>/],
      [["init", "--host", "ftp://x"], /http:\/\/ or https:\/\//],
    ];
    for (const [args, message] of cases) {
      const r = await signet(user, args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
    }
  });

  await t.step("without a host, commands fail with advice", async () => {
    const user = await cliUser(server, { SERVICE_HOST: "" });
    const r = await signet(user, ["whoami"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no host configured: run "signet init --host <URL>"/);
    assert.equal((await signet(user, ["init"])).code, 2);
  });

  await t.step("init: no key off a terminal is an error that creates nothing", async () => {
    const user = await cliUser(server);
    const r = await signet(user, ["init"]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /no SSH key at .*id_ed25519: create one with "signet init --create-key"/,
    );
    await assert.rejects(() => Deno.stat(`${user.home}/.ssh/id_ed25519`));
    assert.equal((await readConfig(user)).host, server.httpUrl, "the host is stored anyway");
  });

  await t.step(
    "init: a host without a scheme that answers only over http:// is named, not used",
    async () => {
      const user = await cliUser(server, { SERVICE_HOST: "" });
      const bare = new URL(server.httpUrl).host; // 127.0.0.1:<port>, a plain-HTTP server
      const out = await signetOk(user, ["init", "--create-key", "--host", bare]);
      assert.match(
        out,
        new RegExp(`Host: https://${bare} \\(no answer over https://, but http://${bare} answers`),
      );
      assert.equal(
        (await readConfig(user)).host,
        `https://${bare}`,
        "stored as given, never downgraded",
      );
    },
  );

  await t.step("config: XDG_CONFIG_HOME when set, else ~/.config/signet", async () => {
    const xdg = await cliUser(server);
    const xdgDir = `${xdg.home}/elsewhere`;
    await signetOk(xdg, ["init", "--create-key"], { env: { XDG_CONFIG_HOME: xdgDir } });
    assert.equal(
      JSON.parse(await Deno.readTextFile(`${xdgDir}/signet/config.json`)).host,
      server.httpUrl,
    );
    const plain = await cliUser(server, { XDG_CONFIG_HOME: "" });
    await signetOk(plain, ["init", "--create-key", "--host", `${server.httpUrl}/`], {
      env: { SERVICE_HOST: "" },
    });
    const file = `${plain.home}/.config/signet/config.json`;
    assert.equal(JSON.parse(await Deno.readTextFile(file)).host, server.httpUrl);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    // the stored host is used when SERVICE_HOST is unset: the server answers
    const r = await signet(plain, ["repo", "list", "nobody"], { env: { SERVICE_HOST: "" } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /user nobody not found/);
  });

  await t.step("failed register and login change nothing and exit 1", async () => {
    const user = await cliUser(server);
    await signetOk(user, ["init", "--create-key"]);
    const bad = await signet(user, ["register", "dave", "--invite", "inv_nonexistent"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invite/);
    assert.equal((await readConfig(user)).username, undefined);
    const nobody = await signet(user, ["login", "dave"]);
    assert.equal(nobody.code, 1);
    assert.equal((await readConfig(user)).token, undefined);
    const invite = await mintInvite(server);
    await signetOk(user, ["register", "dave", "--invite", invite]);
    const reused = await signet(user, ["register", "erin", "--invite", invite]);
    assert.equal(reused.code, 1);
    assert.equal((await readConfig(user)).username, "dave");
  });

  await t.step("on a terminal: register asks, repo delete wants the name typed", async () => {
    const user = await cliUser(server);
    await signetOk(user, ["init", "--create-key"]);
    const invite = await mintInvite(server);
    const env = user.env;
    const deno = Deno.execPath();
    const reg = await runOnPty(deno, ["run", "-A", MAIN, "register"], [
      { expect: "Username: ", reply: "frank" },
      { expect: "Invite code: ", reply: invite },
    ], { env, cwd: user.home });
    assert.equal(reg.code, 0, reg.output);
    assert.match(reg.output, /Registered frank/);

    await signetOk(user, ["repo", "new", "keep"]);
    const wrong = await runOnPty(deno, ["run", "-A", MAIN, "repo", "delete", "keep"], [
      { expect: 'Type "keep" to confirm: ', reply: "nope" },
    ], { env, cwd: user.home });
    assert.equal(wrong.code, 1, wrong.output);
    assert.match(wrong.output, /not deleted/);
    assert.equal(await signetOk(user, ["repo", "list"]), "frank/keep\n");
    const right = await runOnPty(deno, ["run", "-A", MAIN, "repo", "delete", "keep"], [
      { expect: 'Type "keep" to confirm: ', reply: "keep" },
    ], { env, cwd: user.home });
    assert.equal(right.code, 0, right.output);
    assert.match(right.output, /Deleted frank\/keep/);
    assert.equal(await signetOk(user, ["repo", "list"]), "");
  });

  await t.step("on a terminal: init offers to create the missing key", async () => {
    const user = await cliUser(server);
    const r = await runOnPty(Deno.execPath(), ["run", "-A", MAIN, "init"], [
      { expect: "Create one with ssh-keygen? [Y/n] ", reply: "" },
      { expect: "passphrase", reply: "" },
      { expect: "passphrase again", reply: "" },
    ], { env: user.env, cwd: user.home });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /SSH key: .*id_ed25519 \(SHA256:.*\), created now/);
    const pub = await Deno.readTextFile(`${user.home}/.ssh/id_ed25519.pub`);
    assert.match(pub, /^ssh-ed25519 /);
  });
});
