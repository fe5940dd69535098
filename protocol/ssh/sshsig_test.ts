/** Unit tests of the SSHSIG parser and verifier against signatures made by real ssh-keygen. */
import { assertEquals, assertRejects, assertThrows } from "../../tests/helpers/assert.ts";
import { makeKey } from "../../testing/accounts.ts";
import { runOk } from "../../testing/run.ts";
import { parseSshSig, SshSigError, verifySshSig } from "./sshsig.ts";
import { parsePublicKeyLine } from "./sshkey.ts";
import { decodeBase64, encodeBase64 } from "../secrets.ts";

async function sign(keyPath: string, message: string, namespace: string, hash: string) {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/m`, message);
  await runOk("ssh-keygen", [
    "-Y",
    "sign",
    "-q",
    "-O",
    `hashalg=${hash}`,
    "-n",
    namespace,
    "-f",
    keyPath,
    `${dir}/m`,
  ]);
  return await Deno.readTextFile(`${dir}/m.sig`);
}

const key = await makeKey("sig");
const other = await makeKey("other");
const blob = parsePublicKeyLine(key.publicLine).blob;
const msg = "a".repeat(64);
const enc = (s: string) => new TextEncoder().encode(s);

for (const hash of ["sha512", "sha256"]) {
  Deno.test(`ssh-keygen ${hash} signature parses and verifies`, async () => {
    const sig = await sign(key.privatePath, msg, "service", hash);
    const parsed = parseSshSig(sig);
    assertEquals(parsed.namespace, "service");
    assertEquals(parsed.hashAlgorithm, hash);
    await verifySshSig(sig, enc(msg), "service", blob);
  });
}

Deno.test("signature over another message, namespace or key is rejected", async () => {
  const sig = await sign(key.privatePath, msg, "service", "sha512");
  await assertRejects(() => verifySshSig(sig, enc(msg + "\n"), "service", blob), SshSigError);
  await assertRejects(() => verifySshSig(sig, enc("b".repeat(64)), "service", blob), SshSigError);
  const wrongNs = await sign(key.privatePath, msg, "git", "sha512");
  await assertRejects(
    () => verifySshSig(wrongNs, enc(msg), "service", blob),
    SshSigError,
    "namespace",
  );
  const otherSig = await sign(other.privatePath, msg, "service", "sha512");
  await assertRejects(
    () => verifySshSig(otherSig, enc(msg), "service", blob),
    SshSigError,
    "other than",
  );
});

Deno.test("malformed envelopes are rejected with SshSigError", async () => {
  const sig = await sign(key.privatePath, msg, "service", "sha512");
  const lines = sig.trim().split("\n");
  const body = decodeBase64(lines.slice(1, -1).join(""));
  const rearm = (b: Uint8Array) => `${lines[0]}\n${encodeBase64(b)}\n${lines[lines.length - 1]}\n`;
  const cases: string[] = [
    "",
    "not a signature",
    encodeBase64(body), // raw, no armor
    sig.replace("SSH SIGNATURE", "PGP SIGNATURE"),
    rearm(body.subarray(0, body.length - 1)), // truncated
    rearm(new Uint8Array([...body, 0])), // trailing byte
    rearm(new Uint8Array([0x58, ...body.subarray(1)])), // bad magic
    `${lines[0]}\n!!!!\n${lines[lines.length - 1]}`,
  ];
  const badVersion = body.slice();
  badVersion[9] = 2;
  cases.push(rearm(badVersion));
  for (const c of cases) assertThrows(() => parseSshSig(c), SshSigError);
  // Every single-byte mutation of the envelope is rejected, never crashes.
  for (let i = 0; i < body.length; i++) {
    const m = body.slice();
    m[i] ^= 0x01;
    await assertRejects(() => verifySshSig(rearm(m), enc(msg), "service", blob), SshSigError);
  }
});
