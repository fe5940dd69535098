/**
 * `signet credential` as git runs it: by-hand setup, pushes refused for other users'
 * repositories, protocol-only stdout, erase, and tokens replaced by logging in again.
 */
import { serverSql } from "../../../testing/database.ts";
import assert from "node:assert/strict";
import { makeKey, mintInvite } from "../../../testing/accounts.ts";
import { type CliUser, cliUser, git, readConfig, signet, signetOk } from "../../helpers/cli.ts";
import { runOk } from "../../../testing/run.ts";
import { serverTest, type TestServer } from "../../helpers/server.ts";

/** Registers and logs in a fresh user through the CLI; `env` may point SERVICE_SSH_KEY away. */
async function account(server: TestServer, name: string, env: Record<string, string> = {}) {
  const user = await cliUser(server, env);
  if (!env.SERVICE_SSH_KEY) await signetOk(user, ["init", "--create-key"]);
  await signetOk(user, ["register", name, "--invite", await mintInvite(server)]);
  await signetOk(user, ["login"]);
  return user;
}

/** Commits a new file in `dir` and pushes HEAD to main with plain git. */
async function commitAndPush(user: CliUser, dir: string, file: string) {
  await Deno.writeTextFile(`${dir}/${file}`, `${file}\n`);
  await git(user, ["add", file], { cwd: dir });
  const commit = await git(user, ["commit", "-m", file], { cwd: dir });
  assert.equal(commit.code, 0, commit.stderr);
  return await git(user, ["push", "origin", "HEAD:refs/heads/main"], { cwd: dir });
}

/** The commit `main` points at on the server ("" when it does not exist). */
async function remoteMain(user: CliUser, url: string): Promise<string> {
  const r = await git(user, ["ls-remote", url, "refs/heads/main"]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split("\t")[0];
}

/** Sets the stored token in the user's config file. */
async function storeToken(user: CliUser, token: string) {
  const config = await readConfig(user);
  await Deno.writeTextFile(user.configFile, JSON.stringify({ ...config, token }));
}

const GARBAGE = "SERVICE_" + "0".repeat(64);

serverTest("signet credential helper", {}, async (server, t) => {
  const alice = await account(server, "alice");
  const bobKey = await makeKey("bob");
  const bob = await account(server, "bob", { SERVICE_SSH_KEY: bobKey.privatePath });
  await signetOk(alice, ["repo", "new", "proj"]);
  const url = `${server.httpUrl}/alice/proj.git`;

  await t.step(
    "git clone + credential.helper set by hand (as the help says) pushes",
    async () => {
      assert.equal((await git(alice, ["clone", url, "hand"])).code, 0);
      const dir = `${alice.home}/hand`;
      const help = await signetOk(alice, ["help", "credential"]);
      const setup = help.split("\n").filter((l) => l.trim().startsWith("git config"));
      assert.equal(setup.length, 3, help);
      for (const line of setup) await runOk("sh", ["-c", line], { cwd: dir, env: alice.env });
      const push = await commitAndPush(alice, dir, "by-hand.txt");
      assert.equal(push.code, 0, push.stderr);
      const head = (await git(alice, ["rev-parse", "HEAD"], { cwd: dir })).stdout.trim();
      assert.equal(await remoteMain(alice, url), head);
    },
  );

  await t.step("a push to another user's repository through the helper is refused", async () => {
    const before = await remoteMain(bob, url);
    assert.notEqual(before, "");
    await signetOk(bob, ["clone", "alice/proj", "theirs"]);
    const dir = `${bob.home}/theirs`;
    const push = await commitAndPush(bob, dir, "intruder.txt");
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /cannot log in as alice.*only alice can push to alice\/proj/);
    assert.match(push.stderr, /you are logged in as bob/);
    assert.equal(await remoteMain(bob, url), before);

    // Forcing the helper to log in as bob gets bob a token, which the server refuses.
    const forced = await git(bob, ["push", "origin", "HEAD:refs/heads/main"], {
      cwd: dir,
      env: { SERVICE_USER: "bob" },
    });
    assert.notEqual(forced.code, 0);
    assert.match(forced.stderr, /403/);
    assert.equal(await remoteMain(bob, url), before);
  });

  await t.step("get prints only the protocol on stdout; other hosts get nothing", async () => {
    const host = new URL(server.httpUrl).host;
    const get = await signet(alice, ["credential", "get"], {
      stdin: `protocol=http\nhost=${host}\npath=alice/proj.git\n\n`,
    });
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^username=alice\npassword=SERVICE_[0-9a-f]{64}\n$/);

    const foreign = await signet(alice, ["credential", "get"], {
      stdin: "protocol=https\nhost=github.com\npath=alice/proj.git\n\n",
    });
    assert.equal(foreign.stdout, "");
    assert.match(foreign.stderr, /not answering for https:\/\/github\.com/);

    const store = await signet(alice, ["credential", "store"], {
      stdin: `protocol=http\nhost=${host}\nusername=alice\npassword=x\n\n`,
    });
    assert.deepEqual([store.code, store.stdout], [0, ""]);
    const unknown = await signet(alice, ["credential", "frobnicate"], { stdin: "" });
    assert.deepEqual([unknown.code, unknown.stdout], [0, ""]);
    const usage = await signet(alice, ["credential"], { stdin: "" });
    assert.equal(usage.code, 2);
  });

  await t.step("erase forgets the stored token only when git reports that token", async () => {
    const host = new URL(server.httpUrl).host;
    const token = (await readConfig(alice)).token!;
    const other = await signet(alice, ["credential", "erase"], {
      stdin: `protocol=http\nhost=${host}\nusername=alice\npassword=${GARBAGE}\n\n`,
    });
    assert.deepEqual([other.code, other.stdout], [0, ""]);
    assert.equal((await readConfig(alice)).token, token);
    const same = await signet(alice, ["credential", "erase"], {
      stdin: `protocol=http\nhost=${host}\nusername=alice\npassword=${token}\n\n`,
    });
    assert.deepEqual([same.code, same.stdout], [0, ""]);
    assert.equal((await readConfig(alice)).token, undefined);
    assert.equal((await readConfig(alice)).username, "alice");
  });

  await t.step("an invalid stored token is replaced by logging in again (CLI)", async () => {
    await storeToken(alice, GARBAGE);
    const r = await signet(alice, ["whoami"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "alice\n");
    assert.match(r.stderr, /stored token was rejected; logged in again as alice/);
    const fresh = (await readConfig(alice)).token!;
    assert.match(fresh, /^SERVICE_[0-9a-f]{64}$/);
    assert.notEqual(fresh, GARBAGE);
    assert.equal(await signetOk(alice, ["whoami"]), "alice\n");
  });

  await t.step({
    name: "tokens revoked on the server are replaced during git push",
    fn: async () => {
      await signetOk(alice, ["whoami"]);
      const stale = (await readConfig(alice)).token!;
      const db = await serverSql(server.dataDir);
      try {
        await db.query("DELETE FROM tokens");
      } finally {
        await db.close();
      }
      const push = await commitAndPush(alice, `${alice.home}/hand`, "after-revoke.txt");
      assert.equal(push.code, 0, push.stderr);
      const fresh = (await readConfig(alice)).token!;
      assert.notEqual(fresh, stale);
      assert.equal(await signetOk(alice, ["whoami"]), "alice\n");
    },
  });

  await t.step("when logging in again is impossible, the error says why", async () => {
    await storeToken(alice, GARBAGE);
    const r = await signet(alice, ["whoami"], {
      env: { SERVICE_SSH_KEY: `${alice.home}/.ssh/missing` },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /stored token was rejected and logging in again as alice failed/);
    assert.match(r.stderr, /no SSH key at .*missing/);
  });

  await t.step("a passphrase-protected key in ssh-agent logs in and pushes", async () => {
    const dir = await Deno.makeTempDir({ prefix: "signet-agent-" });
    const key = `${dir}/id_ed25519`;
    await runOk("ssh-keygen", ["-q", "-t", "ed25519", "-N", "sekrit", "-f", key]);
    const askpass = `${dir}/askpass.sh`;
    await Deno.writeTextFile(askpass, "#!/bin/sh\necho sekrit\n", { mode: 0o700 });
    const socket = `${dir}/agent.sock`;
    const agent = new Deno.Command("ssh-agent", {
      args: ["-D", "-a", socket],
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      // The socket file appears at bind(2), before the agent listens: wait until it accepts.
      const deadline = Date.now() + 20_000;
      while (!(await agentListens(socket)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const env = { SSH_AUTH_SOCK: socket, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: "force" };
      await runOk("ssh-add", ["-q", key], { env });
      const carol = await cliUser(server, { SERVICE_SSH_KEY: key, SSH_AUTH_SOCK: socket });
      await signetOk(carol, ["register", "carol", "--invite", await mintInvite(server)]);
      const login = await signetOk(carol, ["login"]);
      assert.match(login, /Logged in as carol .*via ssh-agent/);
      await signetOk(carol, ["repo", "new", "vault"]);
      await signetOk(carol, ["clone", "carol/vault"]);
      await storeToken(carol, GARBAGE);
      const push = await commitAndPush(carol, `${carol.home}/vault`, "secret.txt");
      assert.equal(push.code, 0, push.stderr);

      // Without the agent and without a way to ask for the passphrase: a clear failure.
      await storeToken(carol, GARBAGE);
      const r = await signet(carol, ["whoami"], { env: { SSH_AUTH_SOCK: "" } });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /passphrase-protected.*ssh-add/);
    } finally {
      agent.kill("SIGTERM");
      await agent.status;
    }
  });

  assert.ok(!server.logs().includes((await readConfig(alice)).token!), "no token in logs");
});

/** Whether an ssh-agent accepts connections on `socket`. */
async function agentListens(socket: string): Promise<boolean> {
  try {
    (await Deno.connect({ transport: "unix", path: socket })).close();
    return true;
  } catch {
    return false;
  }
}
