/**
 * Login load generator, run as its own process (never inside the server): `connections` loops of
 * challenge -> SSHSIG sign (WebCrypto Ed25519, as the CLI does) -> verify, for `seconds`.
 * Usage: deno run -A bench/load/login_client.ts <httpUrl> <adminKey> <seconds> <connections>
 * Prints one JSON line: { logins, errors, latenciesMs: number[] }.
 */
import { ed25519Blob } from "../../protocol/ssh/sshkey.ts";
import { sshSigSignedData } from "../../protocol/ssh/sshsig.ts";
import { encodeBase64 } from "../../protocol/secrets.ts";
import { wire } from "../../protocol/ssh/sshwire.ts";

const [url, adminKey, secondsArg, connectionsArg] = Deno.args;
const seconds = Number(secondsArg);
const connections = Number(connectionsArg);

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
  "sign",
  "verify",
]) as CryptoKeyPair;
const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
const blob = ed25519Blob(raw);
const username = `login${crypto.getRandomValues(new Uint32Array(1))[0].toString(36)}`;
const invite = await post("/api/admin/invites", {}, { Authorization: `Bearer ${adminKey}` });
if (invite.status !== 201) {
  throw new Error(`invite: ${invite.status} ${JSON.stringify(invite.body)}`);
}
const signup = await post("/api/signup", {
  username,
  public_key: `ssh-ed25519 ${encodeBase64(blob)} bench`,
  invite_code: invite.body.code,
});
if (signup.status !== 201) {
  throw new Error(`signup: ${signup.status} ${JSON.stringify(signup.body)}`);
}

async function sign(nonce: string): Promise<string> {
  const data = await sshSigSignedData(new TextEncoder().encode(nonce), "service", "sha512");
  const sig = new Uint8Array(
    await crypto.subtle.sign("Ed25519", keys.privateKey, data as BufferSource),
  );
  const envelope = wire(
    { raw: new TextEncoder().encode("SSHSIG") },
    1,
    blob,
    "service",
    "",
    "sha512",
    wire("ssh-ed25519", sig),
  );
  const b64 = encodeBase64(envelope).match(/.{1,70}/g)!.join("\n");
  return `-----BEGIN SSH SIGNATURE-----\n${b64}\n-----END SSH SIGNATURE-----\n`;
}

let logins = 0;
let errors = 0;
const latencies: number[] = [];
const deadline = performance.now() + seconds * 1000;
async function loop() {
  while (performance.now() < deadline) {
    const started = performance.now();
    try {
      const ch = await post("/api/login/challenge", { username });
      const nonce = ch.body.nonce as string;
      const signature = await sign(nonce);
      const v = await post("/api/login/verify", { username, nonce, signature });
      if (v.status === 200 && typeof v.body.token === "string") {
        logins++;
        latencies.push(performance.now() - started);
      } else errors++;
    } catch {
      errors++;
    }
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: connections }, loop));
const elapsed = (performance.now() - started) / 1000;
console.log(JSON.stringify({ logins, errors, elapsed, latenciesMs: latencies }));
