/** The worked example of docs/registry-protocol.md, re-derived and re-verified from the document itself. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createHash } from "node:crypto";
import { decodeBase64Url, encodeBase64Url } from "../../protocol/registry/base64url.ts";
import { verifyEd25519 } from "../../server/registry/ed25519.ts";
import { canonicalJson } from "../../protocol/registry/jcs.ts";
import {
  encodeHeader,
  parseDetachedJws,
  proofHeader,
  signingInput,
} from "../../protocol/registry/jws.ts";
import { signerFromKeyFile, signProof } from "../../client/registry.ts";

const doc = await Deno.readTextFile(new URL("../../docs/registry-protocol.md", import.meta.url));

function block(name: string): string {
  const m = new RegExp(`<!-- example:${name} -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(
    doc,
  );
  if (!m) throw new Error(`example block ${name} missing from the protocol document`);
  return m[1];
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("protocol document: the fixed test key is the RFC 8032 test 1 key pair", () => {
  assertEquals(
    hex(decodeBase64Url(block("private_key"))!),
    "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
  );
  assertEquals(
    hex(decodeBase64Url(block("public_key"))!),
    "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
  );
});

Deno.test("protocol document: canonical bytes, header, signature and body all verify", async () => {
  const payload = JSON.parse(block("payload"));
  const canonical = canonicalJson(payload);
  assertEquals(canonical, block("canonical"));
  assert(doc.includes(`${new TextEncoder().encode(canonical).length} bytes, shown as text`));

  const body = JSON.parse(block("body"));
  const { proof, ...rest } = body;
  assertEquals(canonicalJson(rest), canonical);
  const header = proofHeader(proof.key_id, proof.nonce, "POST", "/v1/bots");
  assertEquals(JSON.stringify(header), block("header_json"));
  assertEquals(encodeHeader(header), block("header"));
  assertEquals(proof.jws, `${block("header")}..${block("signature")}`);

  const parsed = parseDetachedJws(proof.jws);
  if (typeof parsed === "string") throw new Error(parsed);
  const input = signingInput(parsed.encodedHeader, new TextEncoder().encode(canonical));
  assert(doc.includes(`(${input.length} bytes)`));
  assert(await verifyEd25519(decodeBase64Url(block("public_key"))!, parsed.signature, input));
  const sha = encodeBase64Url(new Uint8Array(createHash("sha256").update(canonical).digest()));
  assert(doc.includes(`\`${sha}\``));

  // Ed25519 is deterministic: signing again with the documented private key gives the same JWS.
  const signer = await signerFromKeyFile({
    key_id: "k1",
    algorithm: "Ed25519",
    public_key: block("public_key"),
    private_key: block("private_key"),
  });
  const again = await signProof(payload, {
    method: "POST",
    path: "/v1/bots",
    nonce: proof.nonce,
    signer,
    kid: "k1",
  });
  assertEquals(again.jws, proof.jws);

  // Any change to the body breaks the signature.
  const tampered = new TextEncoder().encode(canonical.replace("Example", "Exemple"));
  assert(
    !await verifyEd25519(
      decodeBase64Url(block("public_key"))!,
      parsed.signature,
      signingInput(parsed.encodedHeader, tampered),
    ),
  );
});
