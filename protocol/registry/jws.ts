/**
 * The proof format: an RFC 7797 detached JWS with unencoded payload over the JCS (RFC 8785) of the
 * request body minus `proof`/`proof_set`. Shared by the server (verification) and the client
 * (signing) so both build the same bytes.
 */
import { createHash } from "node:crypto";
import { decodeBase64Url, encodeBase64Url } from "./base64url.ts";
import { parseStrictJson } from "./json.ts";

/** The protected header of a proof, in this member order. */
export interface ProofHeader {
  alg: "EdDSA";
  b64: false;
  crit: ["b64"];
  kid: string;
  nonce: string;
  htm: string;
  htu: string;
}

const HEADER_KEYS = ["alg", "b64", "crit", "kid", "nonce", "htm", "htu"];

/** Builds the protected header for signing `method path` with key `kid` and `nonce`. */
export function proofHeader(kid: string, nonce: string, method: string, path: string): ProofHeader {
  return {
    alg: "EdDSA",
    b64: false,
    crit: ["b64"],
    kid,
    nonce,
    htm: method.toUpperCase(),
    htu: path,
  };
}

/** base64url of the UTF-8 JSON of the header (the `H` of the recipe). */
export function encodeHeader(header: ProofHeader): string {
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(header)));
}

/** ASCII(H) + "." + C: the exact bytes an Ed25519 proof signs. */
export function signingInput(encodedHeader: string, canonicalPayload: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`${encodedHeader}.`);
  const out = new Uint8Array(head.length + canonicalPayload.length);
  out.set(head);
  out.set(canonicalPayload, head.length);
  return out;
}

/** A detached JWS split into its parts. */
export interface ParsedJws {
  encodedHeader: string;
  header: ProofHeader;
  signature: Uint8Array;
}

/** Parses `<H>..<S>`; returns the problem as a string when it is malformed. */
export function parseDetachedJws(jws: string): ParsedJws | string {
  const parts = jws.split(".");
  if (parts.length !== 3 || parts[1] !== "") {
    return "jws must be a detached JWS: <header>..<signature>";
  }
  const [encodedHeader, , encodedSignature] = parts;
  const headerBytes = decodeBase64Url(encodedHeader);
  if (!headerBytes) return "jws header is not strict unpadded base64url";
  const signature = decodeBase64Url(encodedSignature);
  if (!signature) return "jws signature is not strict unpadded base64url";
  if (signature.length !== 64) return "jws signature must be 64 bytes (Ed25519)";
  let header: unknown;
  try {
    header = parseStrictJson(new TextDecoder("utf-8", { fatal: true }).decode(headerBytes));
  } catch {
    return "jws header is not a strict JSON object";
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    return "jws header is not a strict JSON object";
  }
  const h = header as Record<string, unknown>;
  const extra = Object.keys(h).filter((k) => !HEADER_KEYS.includes(k));
  if (extra.length) return `jws header has unsupported parameter "${extra[0]}"`;
  if (h.alg !== "EdDSA") return 'jws header alg must be "EdDSA"';
  if (h.b64 !== false) return "jws header b64 must be false (RFC 7797 unencoded payload)";
  if (!Array.isArray(h.crit) || h.crit.length !== 1 || h.crit[0] !== "b64") {
    return 'jws header crit must be ["b64"]';
  }
  for (const k of ["kid", "nonce", "htm", "htu"]) {
    if (typeof h[k] !== "string" || h[k] === "") {
      return `jws header ${k} must be a non-empty string`;
    }
  }
  return { encodedHeader, header: h as unknown as ProofHeader, signature };
}

/** unpadded base64url SHA-256 of `bytes`. */
export function sha256Base64Url(bytes: Uint8Array): string {
  return encodeBase64Url(new Uint8Array(createHash("sha256").update(bytes).digest()));
}
