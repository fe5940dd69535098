/** The SSH repository commands, help and greeting, with the real OpenSSH client. */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, createUser, login, makeKey } from "../../../testing/accounts.ts";
import { run } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { ssh, sshClientOptions, sshOptions } from "../../helpers/ssh.ts";

serverTest("SSH repo commands", {}, async (server, t) => {
  const alice = await createUser(server, "alice");
  const bob = await createUser(server, "bob");
  const port = server.sshPort;
  const exists = (owner: string, name: string) =>
    Deno.stat(`${server.dataDir}/repos/${owner}/${name}.git/HEAD`).then(() => true, () => false);

  /** Asserts a failure: exit status, empty stdout, exactly one `error: ` line on stderr. */
  const fails = async (user: typeof alice, command: string, code: number, message: string) => {
    const r = await ssh(port, user.key, command);
    assertEquals(r.code, code, `${command}: ${r.stderr}`);
    assertEquals(r.stdout, "", command);
    assertEquals(r.stderr, `error: ${message}\n`, command);
  };

  await t.step("repo new prints `Created <user>/<name>`", async () => {
    const r = await ssh(port, alice.key, "repo new project");
    assertEquals(r, { code: 0, stdout: "Created alice/project\n", stderr: "" });
    assert(await exists("alice", "project"));
    const b = await ssh(port, alice.key, "repo new second.git");
    assertEquals(b, { code: 0, stdout: "Created alice/second\n", stderr: "" });
  });

  await t.step("a repository created over SSH is visible over HTTP", async () => {
    const res = await fetch(`${server.httpUrl}/api/repos/alice/project`);
    assertEquals(res.status, 200);
    const body = await res.json();
    assertEquals(body.repo.owner, "alice");
    assertEquals(body.repo.clone_urls.ssh, `ssh://git@127.0.0.1:${port}/alice/project.git`);
  });

  await t.step("a repository created over HTTP is listed over SSH", async () => {
    await createRepo(server, await login(server, alice), "from-http");
    const r = await ssh(port, alice.key, "repo list");
    assertEquals(r, {
      code: 0,
      stdout: "alice/from-http\nalice/project\nalice/second\n",
      stderr: "",
    });
  });

  await t.step("repo list <user> lists someone else's; empty lists print nothing", async () => {
    assertEquals(await ssh(port, bob.key, "repo list alice"), {
      code: 0,
      stdout: "alice/from-http\nalice/project\nalice/second\n",
      stderr: "",
    });
    assertEquals(await ssh(port, alice.key, "repo list bob"), {
      code: 0,
      stdout: "",
      stderr: "",
    });
  });

  await t.step("repo delete prints `Deleted <user>/<name>`", async () => {
    const r = await ssh(port, alice.key, "repo delete second");
    assertEquals(r, { code: 0, stdout: "Deleted alice/second\n", stderr: "" });
    assert(!await exists("alice", "second"));
    const res = await fetch(`${server.httpUrl}/api/repos/alice/second`);
    assertEquals(res.status, 404);
    await res.body?.cancel();
  });

  await t.step("a repository deleted over HTTP is gone over SSH", async () => {
    const token = await login(server, alice);
    const res = await fetch(`${server.httpUrl}/api/repos/alice/from-http`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${token}` },
    });
    assertEquals(res.status, 200);
    await res.body?.cancel();
    assertEquals((await ssh(port, alice.key, "repo list")).stdout, "alice/project\n");
  });

  await t.step("acting on another user's repository is refused, nothing changes", async () => {
    await fails(
      bob,
      "repo delete alice/project",
      1,
      "bob may not delete alice/project: only its owner may",
    );
    assert(await exists("alice", "project"));
    await fails(bob, "repo new alice/evil", 1, "bob may not create repositories for alice");
    assert(!await exists("alice", "evil"));
    // Plain names always mean the caller's own repositories.
    await fails(bob, "repo delete project", 1, "repository bob/project not found");
    assert(await exists("alice", "project"));
  });

  await t.step("wrong arguments: usage line, exit 2", async () => {
    await fails(alice, "repo new", 2, "usage: repo new <name>");
    await fails(alice, "repo new a b", 2, "usage: repo new <name>");
    await fails(alice, "repo delete", 2, "usage: repo delete <name>");
    await fails(alice, "repo list a b", 2, "usage: repo list [user]");
    await fails(alice, "repo", 2, "usage: repo new|list|delete|help ...");
    await fails(alice, "repo new 'unterminated", 2, "usage: unterminated ' quote in command");
  });

  await t.step("invalid names and unknown users: one-line error, exit 1", async () => {
    const nameRule =
      "repository name must be 1-100 characters: letters, digits, '.', '_' or '-', " +
      "starting with a letter or digit, without '..'";
    await fails(
      alice,
      "repo new a/b/c",
      1,
      'repository path must be <owner>/<name>, got "a/b/c"',
    );
    await fails(alice, "repo new ..", 1, nameRule);
    await fails(alice, "repo new .hidden", 1, nameRule);
    await fails(alice, "repo new -rf", 1, nameRule);
    await fails(alice, "repo new project", 1, "repository alice/project already exists");
    await fails(alice, "repo list nobody", 1, "user nobody not found");
    await fails(alice, "repo delete nope", 1, "repository alice/nope not found");
  });

  await t.step("unknown commands: exit 127", async () => {
    await fails(alice, "ls -la", 127, 'unknown command "ls"; run help for the list');
    await fails(
      alice,
      "repo frobnicate",
      127,
      'unknown command "repo frobnicate"; run help for the list',
    );
    await fails(
      alice,
      "constructor",
      127,
      'unknown command "constructor"; run help for the list',
    );
    await fails(alice, "rm -rf /", 127, 'unknown command "rm"; run help for the list');
  });

  await t.step("help and repo help print the usage", async () => {
    for (const command of ["help", "repo help"]) {
      const r = await ssh(port, alice.key, command);
      assertEquals(r.code, 0);
      assertEquals(r.stderr, "");
      assertStringIncludes(r.stdout, "signed in as alice");
      for (
        const line of [
          `ssh -p ${port} git@127.0.0.1 repo new <name>`,
          `ssh -p ${port} git@127.0.0.1 repo list [user]`,
          `ssh -p ${port} git@127.0.0.1 repo delete <name>`,
          `git clone ssh://git@127.0.0.1:${port}/<user>/<name>.git`,
        ]
      ) assertStringIncludes(r.stdout, line);
    }
  });

  await t.step("shell request from a registered key: greeting, exit 0", async () => {
    const r = await ssh(port, alice.key);
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stdout, "Hi alice!");
    assertStringIncludes(r.stdout, "does not provide shell access");
    assertStringIncludes(r.stdout, `ssh -p ${port} git@127.0.0.1 repo new <name>`);
  });

  await t.step("with a pty (ssh -t), output uses CRLF line ends", async () => {
    const r = await ssh(port, alice.key, "repo list", { extra: ["-tt"] });
    assertEquals(r.code, 0);
    assertEquals(r.stdout, "alice/project\r\n");
  });

  await t.step("env requests other than GIT_PROTOCOL are refused", async () => {
    const r = await ssh(port, alice.key, "repo list", {
      extra: ["-o", "SetEnv=EVIL=1 GIT_PROTOCOL=version=2"],
    });
    assertEquals(r.code, 0);
    assertEquals(r.stdout, "alice/project\n");
  });

  await t.step("the unregistered key gets the signup hint for repo commands too", async () => {
    const r = await ssh(port, await makeKey("nobody"), "repo new x");
    assertEquals(r.code, 1);
    assertEquals(r.stdout, "");
    assertStringIncludes(r.stderr, "is not registered with any account");
    assertStringIncludes(r.stderr, `ssh -p ${port} git@127.0.0.1`);
  });

  await t.step("other SSH features are refused (port forwarding, sftp)", async () => {
    const fwd = await run("ssh", [
      ...sshOptions(port, alice.key),
      "-o",
      "ExitOnForwardFailure=yes",
      "-N",
      "-R",
      "0:127.0.0.1:1",
      "git@127.0.0.1",
    ]);
    assert(fwd.code !== 0, "remote forwarding must be refused");
    const sftp = await run("sftp", [
      ...sshClientOptions(alice.key),
      "-P",
      String(port),
      "git@127.0.0.1",
    ], { stdin: "ls\n" });
    assert(sftp.code !== 0, "sftp must be refused");
  });

  await server.stop();
  // One structured line per SSH session, with the user, command, exit status and duration.
  const sessions = server.logs().split("\n").filter((l) => l.includes('"msg":"ssh session"'));
  assert(sessions.some((l) => l.includes('"user":"alice"') && l.includes('"exit_status":0')));
  assert(sessions.every((l) => /"ms":\d+/.test(l)));
});
