/**
 * Anti-replay nonces. A nonce is `base64url(issued_ms[8] || random[16] || mac[16])` where mac is
 * the first 16 bytes of HMAC-SHA-256(registry key, issued_ms || random): the server can tell it
 * issued a nonce without storing it, so `GET /v1/nonce` writes nothing. A nonce is valid for
 * NONCE_TTL_MS and is consumed (recorded as used until it expires) in the transaction of the
 * write it authorizes.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { decodeBase64Url, encodeBase64Url } from "./base64url.ts";

/** How long a nonce stays usable. */
export const NONCE_TTL_MS = 5 * 60_000;

// The registry has one key; its bytes are parsed once.
let cachedKey: { hex: string; bytes: Uint8Array } | null = null;

function mac(keyHex: string, data: Uint8Array): Uint8Array {
  if (cachedKey?.hex !== keyHex) {
    cachedKey = {
      hex: keyHex,
      bytes: Uint8Array.from(keyHex.match(/../g)!.map((x) => parseInt(x, 16))),
    };
  }
  const h = createHmac("sha256", cachedKey.bytes);
  h.update(data);
  return new Uint8Array(h.digest()).subarray(0, 16);
}

/** Issues a fresh nonce at `nowMs`. */
export function issueNonce(keyHex: string, nowMs: number): string {
  const body = new Uint8Array(24);
  new DataView(body.buffer).setBigUint64(0, BigInt(nowMs));
  crypto.getRandomValues(body.subarray(8));
  const out = new Uint8Array(40);
  out.set(body);
  out.set(mac(keyHex, body), 24);
  return encodeBase64Url(out);
}

/** Checks that `nonce` was issued by this registry and has not expired; returns its expiry time. */
export function checkNonce(
  keyHex: string,
  nonce: string,
  nowMs: number,
): { ok: true; expiresMs: number } | { ok: false; problem: string } {
  const bytes = decodeBase64Url(nonce);
  if (!bytes || bytes.length !== 40) {
    return { ok: false, problem: "nonce was not issued by this registry" };
  }
  const body = bytes.subarray(0, 24);
  if (!timingSafeEqual(mac(keyHex, body), bytes.subarray(24))) {
    return { ok: false, problem: "nonce was not issued by this registry" };
  }
  const issued = Number(new DataView(body.buffer, body.byteOffset).getBigUint64(0));
  if (issued > nowMs + 60_000) {
    return { ok: false, problem: "nonce was not issued by this registry" };
  }
  if (nowMs - issued > NONCE_TTL_MS) {
    return {
      ok: false,
      problem:
        "nonce has expired (nonces are valid for 5 minutes); get a new one from GET /v1/nonce",
    };
  }
  return { ok: true, expiresMs: issued + NONCE_TTL_MS };
}
