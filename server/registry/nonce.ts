/**
 * Anti-replay nonces. A nonce is `base64url(issued_ms[8] || random[16] || mac[16])` where mac is
 * the first 16 bytes of HMAC-SHA-256(registry key, issued_ms || random): the server can tell it
 * issued a nonce without storing it, so `GET /v1/nonce` writes nothing. A nonce is valid for
 * NONCE_TTL_MS and is consumed (recorded as used until it expires) in the transaction of the
 * write it authorizes.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { decodeBase64Url, encodeBase64Url } from "../../protocol/registry/base64url.ts";

/** How long a nonce stays usable. */
export const NONCE_TTL_MS = 5 * 60_000;

/** The registry's nonce MAC key bytes from their stored hex form (parse once, at start-up). */
export function nonceKeyFromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((x) => parseInt(x, 16)));
}

function mac(key: Uint8Array, data: Uint8Array): Uint8Array {
  const h = createHmac("sha256", key);
  h.update(data);
  return new Uint8Array(h.digest()).subarray(0, 16);
}

/** Issues a fresh nonce at `nowMs`. */
export function issueNonce(key: Uint8Array, nowMs: number): string {
  const body = new Uint8Array(24);
  new DataView(body.buffer).setBigUint64(0, BigInt(nowMs));
  crypto.getRandomValues(body.subarray(8));
  const out = new Uint8Array(40);
  out.set(body);
  out.set(mac(key, body), 24);
  return encodeBase64Url(out);
}

/** Checks that `nonce` was issued by this registry and has not expired; returns its expiry time. */
export function checkNonce(
  key: Uint8Array,
  nonce: string,
  nowMs: number,
): { ok: true; expiresMs: number } | { ok: false; problem: string } {
  const bytes = decodeBase64Url(nonce);
  if (!bytes || bytes.length !== 40) {
    return { ok: false, problem: "nonce was not issued by this registry" };
  }
  const body = bytes.subarray(0, 24);
  if (!timingSafeEqual(mac(key, body), bytes.subarray(24))) {
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
