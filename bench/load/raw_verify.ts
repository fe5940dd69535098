/**
 * The reference for verified mutations: how many WebCrypto Ed25519 importKey("raw") + verify per
 * second one Deno process does, with `inFlight` verifications awaited at once (default 1: one after
 * another). Deno runs each verify on its blocking thread pool, so one at a time measures the
 * hand-off as much as the CPU; several in flight show what the process can do.
 * Usage: deno run -A bench/load/raw_verify.ts <seconds> [inFlight]
 * Prints one JSON line: { perSec }.
 */
import { makeVerifySample, verifyOnce } from "./verify_sample.ts";

const seconds = Number(Deno.args[0] ?? "2");
const inFlight = Number(Deno.args[1] ?? "1");
const sample = await makeVerifySample();
let n = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
await Promise.all(Array.from({ length: inFlight }, async () => {
  while (performance.now() < deadline) {
    for (let i = 0; i < 50; i++) {
      if (!(await verifyOnce(sample))) throw new Error("verify failed");
    }
    n += 50;
  }
}));
console.log(JSON.stringify({ perSec: n / ((performance.now() - started) / 1000) }));
