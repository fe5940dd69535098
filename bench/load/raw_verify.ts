/**
 * The reference for verified mutations: how many WebCrypto Ed25519 importKey("raw") + verify per
 * second one Deno process does, with `inFlight` verifications awaited at once (default 1: one after
 * another). Deno runs each verify on its blocking thread pool, so one at a time measures the
 * hand-off as much as the CPU; several in flight show what the process can do.
 * Usage: deno run -A bench/load/raw_verify.ts <seconds> [inFlight]
 * Prints one JSON line: { perSec }.
 */
const seconds = Number(Deno.args[0] ?? "2");
const inFlight = Number(Deno.args[1] ?? "1");
const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
  "sign",
  "verify",
]) as CryptoKeyPair;
const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
// A message the size of a canonicalized mutation payload.
const message = new TextEncoder().encode(JSON.stringify({ payload: "x".repeat(600) }));
const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", keys.privateKey, message));
let n = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
await Promise.all(Array.from({ length: inFlight }, async () => {
  while (performance.now() < deadline) {
    for (let i = 0; i < 50; i++) {
      const key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, [
        "verify",
      ]);
      if (!(await crypto.subtle.verify("Ed25519", key, signature, message))) {
        throw new Error("verify failed");
      }
    }
    n += 50;
  }
}));
console.log(JSON.stringify({ perSec: n / ((performance.now() - started) / 1000) }));
