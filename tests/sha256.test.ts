/** The synchronous SHA-256 behind key fingerprints, against node:crypto and ssh-keygen. */
import { createHash } from "node:crypto";
import { assertEquals } from "./helpers/assert.ts";
import { sha256 } from "../server/crypto/sha256.ts";
import { fingerprint, parsePublicKeyLine } from "../server/crypto/sshkey.ts";
import { makeKey } from "./helpers/accounts.ts";
import { runOk } from "./helpers/run.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("sha256: FIPS 180-4 examples", () => {
  const enc = new TextEncoder();
  assertEquals(
    hex(sha256(enc.encode(""))),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assertEquals(
    hex(sha256(enc.encode("abc"))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assertEquals(
    hex(sha256(enc.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256: equals node:crypto for every length 0..300 (block and padding edges)", () => {
  for (let n = 0; n <= 300; n++) {
    const data = crypto.getRandomValues(new Uint8Array(n));
    assertEquals(hex(sha256(data)), createHash("sha256").update(data).digest("hex"), `length ${n}`);
  }
});

Deno.test("fingerprint: what ssh-keygen -lf prints", async () => {
  const key = await makeKey("fp");
  const out = await runOk("ssh-keygen", ["-lf", `${key.privatePath}.pub`]);
  assertEquals(fingerprint(parsePublicKeyLine(key.publicLine).blob), out.split(" ")[1]);
});
