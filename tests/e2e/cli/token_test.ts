/** `signet token list|revoke`: one's own tokens from the command line. */
import assert from "node:assert/strict";
import { mintInvite } from "../../../testing/accounts.ts";
import { cliUser, readConfig, signet, signetOk } from "../../helpers/cli.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest("signet token list and revoke", {}, async (server, t) => {
  const alice = await cliUser(server);
  await signetOk(alice, ["init", "--create-key"]);
  await signetOk(alice, ["register", "alice", "--invite", await mintInvite(server)]);
  await signetOk(alice, ["login"]);
  const first = (await readConfig(alice)).token!;
  await signetOk(alice, ["login"]);
  const second = (await readConfig(alice)).token!;
  assert.notEqual(first, second);

  await t.step("list: one line per token, the stored one marked", async () => {
    const out = await signetOk(alice, ["token", "list"]);
    const lines = out.trim().split("\n");
    assert.equal(lines.length, 2, out);
    for (const line of lines) {
      assert.match(
        line,
        /^\d+ +created \d{4}-\d\d-\d\d {2}last used \S+ +expires \d{4}-\d\d-\d\d/,
      );
    }
    assert.match(lines[1], /\(this one\)$/);
    assert.doesNotMatch(lines[0], /this one/);
    assert(!out.includes(first.slice(8)) && !out.includes(second.slice(8)));
    const json = JSON.parse(await signetOk(alice, ["token", "list", "--json"]));
    assert.equal(json.length, 2);
    assert.deepEqual(Object.keys(json[0]).sort(), [
      "created_at",
      "current",
      "expires_at",
      "id",
      "last_used_at",
    ]);
  });

  await t.step("revoke another token: it stops working, the stored one still works", async () => {
    const [older] = JSON.parse(await signetOk(alice, ["token", "list", "--json"]));
    assert.equal(
      await signetOk(alice, ["token", "revoke", String(older.id)]),
      `Revoked token ${older.id}\n`,
    );
    const me = await fetch(`${server.httpUrl}/api/user`, {
      headers: { Authorization: `Bearer ${first}` },
    });
    await me.body?.cancel();
    assert.equal(me.status, 401);
    assert.equal((await readConfig(alice)).token, second);
    const again = await signet(alice, ["token", "revoke", String(older.id)]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`token ${older.id} not found`));
  });

  await t.step("revoke the stored token: forgotten here, the next command logs in", async () => {
    const [current] = JSON.parse(await signetOk(alice, ["token", "list", "--json"]));
    assert.equal(current.current, true);
    const out = await signetOk(alice, ["token", "revoke", String(current.id)]);
    assert.match(out, /That was the token stored here/);
    assert.equal((await readConfig(alice)).token, undefined);
    assert.equal(await signetOk(alice, ["whoami"]), "alice\n");
    assert.match((await readConfig(alice)).token!, /^SERVICE_[0-9a-f]{64}$/);
  });

  await t.step("usage errors exit 2", async () => {
    const cases: [string[], RegExp][] = [
      [["token"], /missing subcommand/],
      [["token", "frob"], /unknown subcommand "frob"/],
      [["token", "revoke"], /missing token id/],
      [["token", "revoke", "abc"], /invalid token id "abc"/],
      [["token", "revoke", "1", "2"], /unexpected argument "2"/],
      [["token", "list", "extra"], /unexpected argument "extra"/],
    ];
    for (const [args, message] of cases) {
      const r = await signet(alice, args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
    }
    assert.match(await signetOk(alice, ["help"]), /^ {2}token +list and revoke your API tokens/m);
  });
});
