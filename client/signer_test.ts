/**
 * The client's SSHSIG signing, checked against the real OpenSSH tools: signatures from the key
 * file, from ssh-agent and through ssh-keygen must verify with `ssh-keygen -Y verify`.
 */
import assert from "node:assert/strict";
import { KeyFileError, parseOpenSshPrivateKey } from "./openssh_key.ts";
import { loadSigner, readPublicKey, SignerError } from "./signer.ts";
import { parseSshSig, verifySshSig } from "../protocol/ssh/sshsig.ts";
import { makeKey, sshSign, type TestKey } from "../testing/accounts.ts";
import { run, runOk } from "../testing/run.ts";

const enc = new TextEncoder();
const PASSPHRASE = "correct horse battery staple";

/** `ssh-keygen -Y verify` of `signature` over `message` by `key` under `namespace`. */
async function sshKeygenVerifies(
  key: TestKey,
  message: string,
  signature: string,
  namespace = "service",
): Promise<boolean> {
  const dir = await Deno.makeTempDir({ prefix: "signet-verify-" });
  await Deno.writeTextFile(`${dir}/allowed`, `tester ${key.publicLine}\n`);
  await Deno.writeTextFile(`${dir}/sig`, signature);
  const r = await run("ssh-keygen", [
    "-Y",
    "verify",
    "-f",
    `${dir}/allowed`,
    "-I",
    "tester",
    "-n",
    namespace,
    "-s",
    `${dir}/sig`,
  ], { stdin: message });
  await Deno.remove(dir, { recursive: true });
  return r.code === 0;
}

/** A passphrase-protected ed25519 key and an askpass script that types the passphrase. */
async function encryptedKey(): Promise<TestKey & { askpass: string }> {
  const dir = await Deno.makeTempDir({ prefix: "signet-enckey-" });
  const privatePath = `${dir}/id_ed25519`;
  await runOk("ssh-keygen", [
    "-q",
    "-t",
    "ed25519",
    "-N",
    PASSPHRASE,
    "-C",
    "enc",
    "-f",
    privatePath,
  ]);
  const askpass = `${dir}/askpass.sh`;
  await Deno.writeTextFile(askpass, `#!/bin/sh\necho '${PASSPHRASE}'\n`, { mode: 0o700 });
  return {
    privatePath,
    publicLine: (await Deno.readTextFile(`${privatePath}.pub`)).trim(),
    askpass,
  };
}

/** Runs a private ssh-agent for the duration of `fn`. */
async function withAgent(fn: (socket: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "signet-agent-" });
  const socket = `${dir}/agent.sock`;
  const agent = new Deno.Command("ssh-agent", {
    args: ["-D", "-a", socket],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        await Deno.stat(socket);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await fn(socket);
  } finally {
    agent.kill("SIGTERM");
    await agent.status;
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("key-file signature is byte-identical to ssh-keygen -Y sign and verifies", async () => {
  const key = await makeKey("file");
  const signer = await loadSigner(key.privatePath, { agentSocket: "" });
  assert.equal(signer.method, "key file");
  const nonce = "ab".repeat(32);
  const ours = await signer.sign(enc.encode(nonce));
  // Ed25519 is deterministic and ssh-keygen defaults to sha512: the bytes must match exactly.
  assert.equal(ours, await sshSign(key, nonce));
  assert.ok(ours.startsWith("-----BEGIN SSH SIGNATURE-----\n"));
  const parsed = parseSshSig(ours);
  assert.equal(parsed.hashAlgorithm, "sha512");
  assert.equal(parsed.namespace, "service");
  assert.ok(await sshKeygenVerifies(key, nonce, ours));
  assert.ok(!(await sshKeygenVerifies(key, nonce + "x", ours)), "another message must not verify");
  assert.ok(!(await sshKeygenVerifies(key, nonce, ours, "git")), "another namespace must not");
  await verifySshSig(ours, enc.encode(nonce), "service", parsed.publicKey);
});

Deno.test("signatures over arbitrary bytes and other namespaces verify too", async () => {
  const key = await makeKey("bytes");
  const signer = await loadSigner(key.privatePath, { agentSocket: "" });
  for (const message of ["", "line\nbreaks\n", "ünïcödé ✓", "x".repeat(10_000)]) {
    const sig = await signer.sign(enc.encode(message), "file");
    assert.ok(await sshKeygenVerifies(key, message, sig, "file"), JSON.stringify(message));
  }
});

Deno.test("the private key parser reads ssh-keygen's files and rejects others", async () => {
  const key = await makeKey("parse");
  const plain = parseOpenSshPrivateKey(await Deno.readTextFile(key.privatePath));
  assert.equal(plain.encrypted, false);
  assert.equal(plain.seed!.length, 32);
  assert.equal(plain.comment, "parse");
  assert.equal(plain.publicKey.line, key.publicLine.split(" ").slice(0, 2).join(" "));

  const locked = await encryptedKey();
  const parsed = parseOpenSshPrivateKey(await Deno.readTextFile(locked.privatePath));
  assert.equal(parsed.encrypted, true);
  assert.equal(parsed.seed, undefined);
  assert.equal(parsed.publicKey.line, locked.publicLine.split(" ").slice(0, 2).join(" "));

  const dir = await Deno.makeTempDir({ prefix: "signet-rsa-" });
  await runOk("ssh-keygen", ["-q", "-t", "ecdsa", "-N", "", "-f", `${dir}/ecdsa`]);
  assert.throws(
    () => parseOpenSshPrivateKey(Deno.readTextFileSync(`${dir}/ecdsa`)),
    (e: Error) => e instanceof KeyFileError && e.message.includes("ecdsa-sha2-nistp256"),
  );
  assert.throws(() => parseOpenSshPrivateKey("not a key"), KeyFileError);
  assert.throws(
    () =>
      parseOpenSshPrivateKey(
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----",
      ),
    /RSA PRIVATE KEY/,
  );

  // Damage the private section: in the public half of the private key the parser notices; in
  // the seed, the public key derived from it no longer matches and loading the signer fails.
  const text = await Deno.readTextFile(key.privatePath);
  const lines = text.trim().split("\n");
  const body = Uint8Array.from(atob(lines.slice(1, -1).join("")), (c) => c.charCodeAt(0));
  const raw = plain.publicKey.raw;
  const hits: number[] = [];
  for (let i = 0; i + raw.length <= body.length; i++) {
    if (raw.every((b, j) => body[i + j] === b)) hits.push(i);
  }
  assert.equal(hits.length, 3, "public key in header, private section, and after the seed");
  const damage = async (at: number) => {
    const copy = body.slice();
    copy[at] ^= 1;
    const armored = [lines[0], btoa(String.fromCharCode(...copy)), lines.at(-1)].join("\n");
    const path = `${dir}/damaged`;
    await Deno.writeTextFile(path, armored + "\n", { mode: 0o600 });
    return { armored, path };
  };
  const badPub = await damage(hits[2] + 5);
  assert.throws(() => parseOpenSshPrivateKey(badPub.armored), /does not match/);
  const badSeed = await damage(hits[2] - 1);
  assert.equal(parseOpenSshPrivateKey(badSeed.armored).encrypted, false);
  await assert.rejects(() => loadSigner(badSeed.path, { agentSocket: "" }), /does not match/);
});

Deno.test("readPublicKey uses the .pub beside the key and checks that it matches", async () => {
  const key = await makeKey("pub-comment");
  assert.equal((await readPublicKey(key.privatePath)).line, key.publicLine);
  await Deno.remove(`${key.privatePath}.pub`);
  const derived = await readPublicKey(key.privatePath);
  assert.equal(derived.line, key.publicLine.split(" ").slice(0, 2).join(" "));
  const other = await makeKey("other");
  await Deno.writeTextFile(`${key.privatePath}.pub`, other.publicLine);
  await assert.rejects(() => readPublicKey(key.privatePath), /does not match/);
  await assert.rejects(() => readPublicKey(`${key.privatePath}.missing`), /no SSH key at/);
});

Deno.test("a passphrase-protected key signs through ssh-agent", async () => {
  const key = await encryptedKey();
  await withAgent(async (socket) => {
    // Not yet in the agent, and ssh-keygen fallback disabled: a clear error naming ssh-add.
    await assert.rejects(
      () => loadSigner(key.privatePath, { agentSocket: socket, allowSshKeygen: false }),
      (e: Error) => e instanceof SignerError && /ssh-add/.test(e.message),
    );
    await runOk("ssh-add", ["-q", key.privatePath], {
      env: {
        SSH_AUTH_SOCK: socket,
        SSH_ASKPASS: key.askpass,
        SSH_ASKPASS_REQUIRE: "force",
        DISPLAY: ":0",
      },
    });
    const signer = await loadSigner(key.privatePath, { agentSocket: socket });
    assert.equal(signer.method, "ssh-agent");
    const nonce = "cd".repeat(32);
    const sig = await signer.sign(enc.encode(nonce));
    assert.equal(parseSshSig(sig).hashAlgorithm, "sha512");
    assert.ok(await sshKeygenVerifies(key, nonce, sig));
  });
});

Deno.test("without an agent, ssh-keygen signs and asks for the passphrase itself", async () => {
  const key = await encryptedKey();
  const saved = {
    SSH_ASKPASS: Deno.env.get("SSH_ASKPASS"),
    SSH_ASKPASS_REQUIRE: Deno.env.get("SSH_ASKPASS_REQUIRE"),
  };
  try {
    Deno.env.set("SSH_ASKPASS", key.askpass);
    Deno.env.set("SSH_ASKPASS_REQUIRE", "force");
    const signer = await loadSigner(key.privatePath, { agentSocket: "" });
    assert.equal(signer.method, "ssh-keygen");
    const nonce = "ef".repeat(32);
    const sig = await signer.sign(enc.encode(nonce));
    assert.equal(parseSshSig(sig).hashAlgorithm, "sha512");
    assert.ok(await sshKeygenVerifies(key, nonce, sig));

    // A wrong passphrase: a clear error that says what to do.
    const wrong = `${key.askpass}.wrong`;
    await Deno.writeTextFile(wrong, "#!/bin/sh\necho nope\n", { mode: 0o700 });
    Deno.env.set("SSH_ASKPASS", wrong);
    await assert.rejects(
      () => signer.sign(enc.encode(nonce)),
      (e: Error) =>
        e instanceof SignerError && e.message.includes("passphrase-protected") &&
        e.message.includes("ssh-add"),
    );
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) Deno.env.delete(k);
      else Deno.env.set(k, v);
    }
  }
});
