/** SSH authentication: verified signatures only, user `git`, ed25519 keys, host key persistence. */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, createUser, login, makeKey, userWithRepo } from "../../../testing/accounts.ts";
import { run, runOk } from "../../../testing/run.ts";
import { SERVER_TEST, serverTest, startTestServer } from "../../helpers/server.ts";
import { scanHostKeyFingerprint, ssh, sshOptions } from "../../helpers/ssh.ts";
import { connectWithPassword, connectWithSwappedSigner } from "../../helpers/ssh2_client.ts";

Deno.test({
  name: "SSH authentication and host key",
  ...SERVER_TEST,
  async fn(t) {
    let server = await startTestServer({ env: { SERVICE_RATE_LIMITS: "on" } });
    const port = server.sshPort;
    const alice = await createUser(server, "alice");
    const mallory = await createUser(server, "mallory");
    await createRepo(server, await login(server, alice), "secret");
    const alicePrivate = await Deno.readTextFile(alice.key.privatePath);
    const malloryPrivate = await Deno.readTextFile(mallory.key.privatePath);

    /** Offers alice's public key on the SSH port but signs with `privateKey`, then runs `command`. */
    const offeringAlices = (privateKey: string, command: string) =>
      connectWithSwappedSigner(port, alice.key.publicLine, privateKey, command);

    await t.step("control: the ssh2 test client gets in when it signs honestly", async () => {
      const r = await offeringAlices(alicePrivate, "repo list");
      assertEquals(r.authenticated, true, r.error);
      assertEquals(r.stdout, "alice/secret\n");
      assertEquals(r.code, 0);
    });

    await t.step("offering alice's key but signing with mallory's is refused", async () => {
      const r = await offeringAlices(malloryPrivate, "repo delete secret");
      assertEquals(r.authenticated, false);
      assertStringIncludes(r.error ?? "", "All configured authentication methods failed");
      assertEquals((await ssh(port, alice.key, "repo list")).stdout, "alice/secret\n");
      const logs = server.logs();
      assertStringIncludes(
        logs,
        '"msg":"ssh authentication failed","remote_addr":"127.0.0.1","reason":"bad signature"',
      );
    });

    await t.step("an unregistered key signing for alice's key is refused too", async () => {
      const stranger = await makeKey("stranger");
      const r = await offeringAlices(await Deno.readTextFile(stranger.privatePath), "repo list");
      assertEquals(r.authenticated, false);
    });

    await t.step("only the SSH user git is accepted", async () => {
      const args = sshOptions(port, alice.key);
      const r = await run("ssh", [...args, "-T", "alice@127.0.0.1", "repo list"]);
      assertEquals(r.code, 255);
      assertStringIncludes(r.stderr, "Permission denied (publickey)");
      assertStringIncludes(server.logs(), '"remote_addr":"127.0.0.1","reason":"invalid user"');
    });

    await t.step("non-ed25519 keys and passwords are refused", async () => {
      const dir = await Deno.makeTempDir();
      await runOk("ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", `${dir}/rsa`]);
      const rsa = { privatePath: `${dir}/rsa`, publicLine: "" };
      const r = await ssh(port, rsa, "repo list");
      assertEquals(r.code, 255);
      assertStringIncludes(r.stderr, "Permission denied (publickey)");
      // The line says what was offered, for the operator helping a user with an RSA key.
      await waitForLog(
        server,
        '"remote_addr":"127.0.0.1","reason":"no usable key (offered only ssh-rsa; accounts use ssh-ed25519 keys)"',
      );
      const pw = await connectWithPassword(port, "hunter2", "repo list");
      assertEquals(pw.authenticated, false);
      await waitForLog(server, '"remote_addr":"127.0.0.1","reason":"method password not allowed"');
    });

    await t.step("logs never carry key material", () => {
      const logs = server.logs();
      for (const key of [alice.key.publicLine, mallory.key.publicLine]) {
        const base64 = key.split(" ")[1];
        assert(!logs.includes(base64), "public key in logs");
        assert(!logs.includes(base64.slice(20, 60)), "part of a public key in logs");
      }
      assert(!logs.includes("PRIVATE KEY"));
    });

    await t.step("host key: ed25519, OpenSSH format, mode 0600", async () => {
      const path = `${server.dataDir}/ssh_host_ed25519_key`;
      const stat = await Deno.stat(path);
      assertEquals(stat.mode! & 0o777, 0o600);
      assertStringIncludes(await Deno.readTextFile(path), "-----BEGIN OPENSSH PRIVATE KEY-----");
      const local = await runOk("ssh-keygen", ["-l", "-f", path]);
      assertEquals(local.split(" ")[1], await scanHostKeyFingerprint(port));
      assertStringIncludes(local, "(ED25519)");
    });

    await t.step("restart: same host key fingerprint, accounts and repositories", async () => {
      const before = await scanHostKeyFingerprint(port);
      const dataDir = server.dataDir;
      const ports = { http: server.httpPort, ssh: port, registry: registryPort(server) };
      await server.stop();
      server = await startTestServer({ dataDir, ports, env: { SERVICE_RATE_LIMITS: "on" } });
      assertEquals(await scanHostKeyFingerprint(port), before);
      assertEquals(await ssh(port, alice.key, "repo list"), {
        code: 0,
        stdout: "alice/secret\n",
        stderr: "",
      });
      // A client that pinned the host key before the restart still connects.
      const knownHosts = `${await Deno.makeTempDir()}/known_hosts`;
      const scan = await runOk("ssh-keyscan", ["-t", "ed25519", "-p", String(port), "127.0.0.1"]);
      await Deno.writeTextFile(knownHosts, scan);
      const strict = await run("ssh", [
        ...sshOptions(port, alice.key).map((o) =>
          o === "StrictHostKeyChecking=no" ? "StrictHostKeyChecking=yes" : o
        ).map((
          o,
        ) => (o === "UserKnownHostsFile=/dev/null" ? `UserKnownHostsFile=${knownHosts}` : o)),
        "-T",
        "git@127.0.0.1",
        "repo list",
      ]);
      assertEquals(strict.code, 0, strict.stderr);
    });

    await t.step("repeated failures from one address are cut off (rate limit)", async () => {
      // ssh_auth_fail_ip allows a burst of 20 failures, then drops connections without a reply.
      let dropped = false;
      for (let i = 0; i < 30 && !dropped; i++) {
        const r = await offeringAlices(malloryPrivate, "x");
        assertEquals(r.authenticated, false);
        dropped = !(r.error ?? "").includes("All configured authentication methods failed");
      }
      assert(dropped, "the address is refused once over its limit");
      assertStringIncludes(server.logs(), '"msg":"ssh authentication rate limited"');
      // The honest owner from another address would be unaffected; from this one, too, once
      // the bucket refills. Either way the repository is untouched.
      assert(await Deno.stat(`${server.dataDir}/repos/alice/secret.git`));
    });

    await server.stop();
  },
});

function registryPort(server: { registryUrl: string }): number {
  return Number(new URL(server.registryUrl).port);
}

/** Waits until the server's log contains `text` (some lines are written as connections close). */
async function waitForLog(server: { logs(): string }, text: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!server.logs().includes(text)) {
    if (Date.now() > deadline) assertStringIncludes(server.logs(), text);
    await new Promise((r) => setTimeout(r, 20));
  }
}

serverTest("SERVICE_SSH_BIND=off: no SSH listener, no SSH clone URLs, no host key", {
  env: { SERVICE_SSH_BIND: "off" },
}, async (server) => {
  const { user: alice } = await userWithRepo(server, "alice", "x");
  const view = await (await fetch(`${server.httpUrl}/api/repos/alice/x`)).json();
  assertEquals(view.repo.clone_urls.ssh, null);
  const r = await ssh(server.sshPort, alice.key, "repo list");
  assertEquals(r.code, 255, "nothing listens on the SSH port");
  assertEquals(
    await Deno.stat(`${server.dataDir}/ssh_host_ed25519_key`).catch(() => null),
    null,
  );
});
