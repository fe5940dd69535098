/** Interactive SSH signup: piped without a pty, and typed through a real pty (tmux). */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  createUser,
  makeKey,
  mintInvite,
  postJson,
  type TestKey,
} from "../../../testing/accounts.ts";
import { run } from "../../../testing/run.ts";
import { serverTest, tempHome } from "../../helpers/server.ts";
import { gitSshEnv, ssh, sshCommand } from "../../helpers/ssh.ts";
import { type Pane, startPane } from "../../helpers/tmux.ts";

serverTest("SSH signup", {}, async (server, t) => {
  const home = await tempHome("signet-ssh-signup-");
  const port = server.sshPort;
  const admin = await createUser(server, "taken");
  /** A pty running `ssh -t` with `key`, at its first prompt; closed after `fn`. */
  const atUsernamePrompt = async (key: TestKey, fn: (pane: Pane) => Promise<void>) => {
    const pane = await startPane(`${sshCommand(port, key)} -t git@127.0.0.1`);
    try {
      await pane.waitFor("Username:");
      await fn(pane);
    } finally {
      await pane.close();
    }
  };
  /** A new key named `name` and a fresh invite code for it. */
  const newcomer = async (name: string) => ({
    key: await makeKey(name),
    code: await mintInvite(server),
  });
  /** Whether `username` exists, asked over SSH by a registered user. */
  const userExists = async (username: string) => {
    const r = await ssh(port, admin.key, `repo list ${username}`);
    return r.code === 0;
  };
  /** Whether `code` is still unused: a throwaway HTTP signup with it succeeds. */
  const inviteUnused = async (code: string) => {
    const key = await makeKey("probe");
    const probe = `probe${Math.floor(Math.random() * 1e6)}`;
    const r = await postJson(`${server.httpUrl}/api/signup`, {
      username: probe,
      public_key: key.publicLine,
      invite_code: code,
    });
    return r.status === 201;
  };
  const canUseGit = async (key: TestKey, username: string) => {
    const created = await ssh(port, key, "repo new first");
    assertEquals(created, { code: 0, stdout: `Created ${username}/first\n`, stderr: "" });
    const work = `${home}/${username}-work`;
    const env = gitSshEnv(port, key, home);
    await run("git", ["init", "-q", "-b", "main", work], { env });
    await Deno.writeTextFile(`${work}/a.txt`, "hi");
    await run("git", ["add", "."], { cwd: work, env });
    await run("git", ["commit", "-q", "-m", "hi"], { cwd: work, env });
    const push = await run(
      "git",
      ["push", `ssh://git@127.0.0.1:${port}/${username}/first.git`, "main"],
      { cwd: work, env },
    );
    assertEquals(push.code, 0, push.stderr);
  };

  const pipedKey = await makeKey("piped");
  await t.step("without a pty: piped answers, re-prompts, account created", async () => {
    const key = pipedKey;
    const code = await mintInvite(server);
    const input = ["Bad Name!", "taken", "newbie", "inv_wrong", code, ""].join("\n");
    const r = await ssh(port, key, undefined, { stdin: input });
    assertEquals(r.code, 0, r.stdout + r.stderr);
    const out = r.stdout;
    assertStringIncludes(out, "is not registered yet");
    assertStringIncludes(out, "Username:   username must be 2-32 characters");
    assertStringIncludes(out, "username taken is already taken. Please choose another.");
    assertStringIncludes(out, "Invite code:   invite code not found. Please check the code");
    assertStringIncludes(out, "Welcome, newbie! Your account is ready");
    assertStringIncludes(out, `ssh -p ${port} git@127.0.0.1 repo new <name>`);
    assertStringIncludes(out, `git clone ssh://git@127.0.0.1:${port}/<user>/<name>.git`);
    assertEquals(out.split("Username: ").length - 1, 3, "asked three times");
    assertEquals(out.split("Invite code: ").length - 1, 2, "asked twice");
    assert(!await inviteUnused(code), "the invite is used up");
  });

  await t.step("the new account uses git over SSH on the next connection", async () => {
    await canUseGit(pipedKey, "newbie");
    const other = await ssh(port, await makeKey("other"), "repo list newbie");
    assertEquals(other.code, 1, "another, unregistered key still cannot run commands");
    assertStringIncludes(other.stderr, "is not registered with any account");
  });

  await t.step("end of input before the invite: nothing is created", async () => {
    const { key, code } = await newcomer("quitter");
    const r = await ssh(port, key, undefined, { stdin: "quitter\n" });
    assertEquals(r.code, 1);
    assertStringIncludes(r.stdout, "Invite code: \nSignup cancelled; no account was created.\n");
    assert(!await userExists("quitter"));
    assert(await inviteUnused(code), "the invite is still usable");
  });

  await t.step("a final line without newline still counts when piped", async () => {
    const { key, code } = await newcomer("nonl");
    const r = await ssh(port, key, undefined, { stdin: `nonl\n${code}` });
    assertEquals(r.code, 0, r.stdout);
    assert(await userExists("nonl"));
    await canUseGit(key, "nonl");
  });

  await t.step("through a pty: echo, backspace, arrow keys, then git works", async () => {
    const { key, code } = await newcomer("typist");
    await atUsernamePrompt(key, async (pane) => {
      await pane.send(["Bad!"], { literal: true });
      await pane.send(["Enter"]);
      await pane.waitFor("Please choose another.");
      await pane.send(["tyx", "BSpace", "BSpace", "Left", "ypist"]);
      await pane.waitFor("Username: typist");
      await pane.send(["Enter"]);
      await pane.waitFor("Invite code:");
      await pane.send([code, "Enter"]);
      const screen = await pane.waitFor("Welcome, typist!");
      assertStringIncludes(screen, "Username: Bad!\n  username must be");
      assertStringIncludes(screen, `Invite code: ${code}\n`);
      assertEquals(await pane.exitCode(), 0);
    });
    assert(await userExists("typist"));
    await canUseGit(key, "typist");
  });

  await t.step("through a pty: Ctrl-C at the invite prompt creates nothing", async () => {
    const { key, code } = await newcomer("ctrlc");
    await atUsernamePrompt(key, async (pane) => {
      await pane.send(["ctrlc", "Enter"]);
      await pane.waitFor("Invite code:");
      await pane.send([code.slice(0, 10)], { literal: true });
      await pane.send(["C-c"]);
      const screen = await pane.waitFor("Signup cancelled; no account was created.");
      assertStringIncludes(screen, `Invite code: ${code.slice(0, 10)}^C\n`);
      assertEquals(await pane.exitCode(), 1);
    });
    assert(!await userExists("ctrlc"));
    assert(await inviteUnused(code));
  });

  await t.step("through a pty: Ctrl-D at the username prompt creates nothing", async () => {
    const key = await makeKey("ctrld");
    await atUsernamePrompt(key, async (pane) => {
      await pane.send(["ctrld"], { literal: true });
      await pane.send(["C-d"]);
      await pane.waitFor("Signup cancelled; no account was created.");
      assertEquals(await pane.exitCode(), 1);
    });
    assert(!await userExists("ctrld"));
  });

  await t.step("a registered key in a pty gets the greeting and exit 0", async () => {
    const pane = await startPane(`${sshCommand(port, admin.key)} -t git@127.0.0.1`);
    try {
      const screen = await pane.waitFor("[exit 0]");
      assertStringIncludes(screen, "Hi taken!");
      assertStringIncludes(screen, "does not provide shell access");
    } finally {
      await pane.close();
    }
  });
});
