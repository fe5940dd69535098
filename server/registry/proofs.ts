/**
 * Verifying the proofs of a mutation: split `proof`/`proof_set` off the body, canonicalize the
 * rest (JCS), and check every detached JWS (header, binding to this request, freshness, nonce,
 * Ed25519 signature). Which signers are then enough is policy.ts's business.
 */
import { DomainError } from "../../protocol/errors.ts";
import { decodeBase64Url } from "../../protocol/registry/base64url.ts";
import { verifyEd25519 } from "./ed25519.ts";
import { canonicalJson } from "../../protocol/registry/jcs.ts";
import { parseDetachedJws, sha256Base64Url, signingInput } from "../../protocol/registry/jws.ts";
import { checkNonce } from "./nonce.ts";
import { qualify } from "./policy.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import type { ProofT, SignerSetT } from "../../protocol/registry/schemas.ts";

/** How far `created` may be from the server's clock. */
export const CREATED_SKEW_MS = 5 * 60_000;

/** A body split into its signed payload and its proofs. */
export interface SplitBody {
  payload: Record<string, unknown>;
  /** The JCS text of the payload, and its UTF-8 bytes (what the proofs sign). */
  canonicalText: string;
  canonical: Uint8Array;
  proof?: ProofT;
  proofSet?: SignerSetT;
}

/** Removes the top-level `proof`/`proof_set` (exactly one must be present) and canonicalizes the rest. */
export function splitProofs(body: Record<string, unknown>): SplitBody {
  const hasProof = "proof" in body;
  const hasSet = "proof_set" in body;
  if (hasProof === hasSet) {
    throw new DomainError(
      "invalid",
      hasProof
        ? "send exactly one of proof or proof_set, not both"
        : "a proof is required: send exactly one of proof or proof_set",
    );
  }
  const { proof, proof_set, ...payload } = body;
  const canonicalText = canonicalJson(payload);
  return {
    payload,
    canonicalText,
    canonical: new TextEncoder().encode(canonicalText),
    proof: proof as ProofT | undefined,
    proofSet: proof_set as SignerSetT | undefined,
  };
}

/** One verified signature: which key made it and the nonce it consumed. */
export interface VerifiedSignature {
  signer: string;
  botId: string;
  keyId: string;
  publicKey: string;
  nonce: string;
  nonceExpiresMs: number;
}

/** What a verification needs to know about the request and the registry. */
export interface ProofContext {
  method: string;
  path: string;
  /** The target bot (for create: the record being created). */
  target: Bot;
  /** Only the target's own keys may sign (create). */
  ownKeysOnly: boolean;
  lookup: (botId: string) => Bot | undefined;
  nonceKey: Uint8Array;
  nowMs: number;
}

/** Verifies every proof of `split`; throws a 400 naming the first problem. */
export async function verifyProofs(
  split: SplitBody,
  ctx: ProofContext,
): Promise<VerifiedSignature[]> {
  const items: [string, ProofT][] = [];
  if (split.proof) items.push(["proof", split.proof]);
  if (split.proofSet) {
    const digest = sha256Base64Url(split.canonical);
    if (split.proofSet.payload_sha256 !== digest) {
      throw new DomainError(
        "invalid",
        `proof_set.payload_sha256 does not match the canonical payload (expected ${digest})`,
      );
    }
    split.proofSet.proofs.forEach((p, i) => items.push([`proof_set.proofs[${i}]`, p]));
  }
  const out: VerifiedSignature[] = [];
  for (const [label, proof] of items) out.push(await verifyOne(label, proof, split.canonical, ctx));
  return out;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

async function verifyOne(
  label: string,
  proof: ProofT,
  canonical: Uint8Array,
  ctx: ProofContext,
): Promise<VerifiedSignature> {
  const fail = (msg: string): never => {
    throw new DomainError("invalid", `${label}: ${msg}`);
  };
  if (proof.algorithm !== "Ed25519") fail('algorithm must be "Ed25519"');
  const created = ISO_UTC.test(proof.created) ? Date.parse(proof.created) : NaN;
  if (Number.isNaN(created)) fail("created must be an ISO 8601 UTC timestamp ending in Z");
  if (Math.abs(ctx.nowMs - created) > CREATED_SKEW_MS) {
    fail("created is more than 5 minutes away from the server's clock");
  }
  const jws = parseDetachedJws(proof.jws);
  if (typeof jws === "string") return fail(jws);
  const h = jws.header;
  if (h.kid !== proof.key_id) {
    fail(`jws header kid "${h.kid}" does not equal key_id "${proof.key_id}"`);
  }
  if (h.htm !== ctx.method) {
    fail(`jws header htm "${h.htm}" does not match this request's method ${ctx.method}`);
  }
  if (h.htu !== ctx.path) {
    fail(`jws header htu "${h.htu}" does not match this request's path ${ctx.path}`);
  }
  if (proof.nonce !== undefined && proof.nonce !== h.nonce) {
    fail("nonce does not equal the jws header nonce");
  }
  const nonce = checkNonce(ctx.nonceKey, h.nonce, ctx.nowMs);
  if (!nonce.ok) return fail(nonce.problem);
  const key = resolveKey(proof.key_id, ctx);
  if (!key) {
    return fail(
      ctx.ownKeysOnly
        ? `key_id "${proof.key_id}" is not a key of the record being created`
        : `unknown key "${proof.key_id}": not a key of bot ${ctx.target.bot_id} or of its controllers`,
    );
  }
  const ok = await verifyEd25519(
    decodeBase64Url(key.publicKey)!,
    jws.signature,
    signingInput(jws.encodedHeader, canonical),
  );
  if (!ok) fail(`signature does not verify with key ${key.signer} (wrong key or altered body)`);
  return { ...key, nonce: h.nonce, nonceExpiresMs: nonce.expiresMs };
}

function resolveKey(
  kid: string,
  ctx: ProofContext,
): { signer: string; botId: string; keyId: string; publicKey: string } | undefined {
  const hash = kid.indexOf("#");
  const botId = hash === -1 ? ctx.target.bot_id : kid.slice(0, hash);
  const keyId = hash === -1 ? kid : kid.slice(hash + 1);
  let bot: Bot | undefined;
  if (botId === ctx.target.bot_id) bot = ctx.target;
  else if (!ctx.ownKeysOnly && ctx.target.controllers.some((c) => c.bot_id === botId)) {
    bot = ctx.lookup(botId);
  }
  const key = bot?.keys.find((k) => k.key_id === keyId);
  if (!bot || !key) return undefined;
  return {
    signer: qualify(bot.bot_id, keyId),
    botId: bot.bot_id,
    keyId,
    publicKey: key.public_key,
  };
}
