/**
 * Replaying the audit log: anyone holding the exported log (GET /v1/log) can check the hash
 * chain, re-verify every signature against the keys the bots had at that point, and rebuild every
 * bot record by applying the same transitions the server applied.
 */
import { verifyChain } from "./audit.ts";
import { attestationSigningBytes } from "./attestations.ts";
import { decodeBase64Url } from "../../protocol/registry/base64url.ts";
import { verifyEd25519 } from "./ed25519.ts";
import { parseDetachedJws, signingInput } from "../../protocol/registry/jws.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import { applyOperation, type BotOperation } from "./record.ts";
import type { LogEntryT, ProofT } from "../../protocol/registry/schemas.ts";

/** The outcome of a replay: rebuilt records, or the first problem found. */
export interface ReplayResult {
  bots: Map<string, Bot>;
  problem: string | null;
}

/** Replays `entries` (the whole log from seq 1, in order), verifying chain and signatures. */
export async function replayLog(entries: LogEntryT[]): Promise<ReplayResult> {
  const bots = new Map<string, Bot>();
  const chain = verifyChain(entries);
  if (chain) return { bots, problem: chain };
  for (const e of entries) {
    const payload = JSON.parse(e.body) as Record<string, unknown>;
    const problem = e.operation === "publish_attestation"
      ? await verifyAttestationEntry(payload, bots)
      : await verifyMutationEntry(e, payload, bots);
    if (problem) return { bots, problem: `entry ${e.seq}: ${problem}` };
    if (e.operation === "publish_attestation") continue;
    const keyId = e.operation === "remove_key"
      ? decodeURIComponent(e.path.split("/").pop()!)
      : undefined;
    bots.set(
      e.bot_id,
      applyOperation(e.operation as BotOperation, bots.get(e.bot_id) ?? null, payload, {
        botId: e.bot_id,
        keyId,
      }, { now: e.created_at, seq: e.seq, logHash: e.hash, approvedBy: e.signers }),
    );
  }
  return { bots, problem: null };
}

async function verifyMutationEntry(
  e: LogEntryT,
  payload: Record<string, unknown>,
  bots: Map<string, Bot>,
): Promise<string | null> {
  const proofs: ProofT[] = e.proof ? [e.proof] : e.proof_set?.proofs ?? [];
  if (proofs.length === 0) return "no proofs";
  const target = bots.get(e.bot_id);
  const canonical = new TextEncoder().encode(e.body);
  const verified = new Set<string>();
  for (const proof of proofs) {
    const jws = parseDetachedJws(proof.jws);
    if (typeof jws === "string") return jws;
    if (jws.header.htm !== e.method || jws.header.htu !== e.path) {
      return "proof bound to another request";
    }
    const hash = proof.key_id.indexOf("#");
    const botId = hash === -1 ? e.bot_id : proof.key_id.slice(0, hash);
    const keyId = hash === -1 ? proof.key_id : proof.key_id.slice(hash + 1);
    const keys = e.operation === "create_bot" && botId === e.bot_id
      ? (payload.keys as { key_id: string; public_key: string }[])
      : (botId === e.bot_id ? target : bots.get(botId))?.keys;
    const key = keys?.find((k) => k.key_id === keyId);
    if (!key) return `unknown key ${proof.key_id}`;
    const ok = await verifyEd25519(
      decodeBase64Url(key.public_key)!,
      jws.signature,
      signingInput(jws.encodedHeader, canonical),
    );
    if (!ok) return `signature by ${proof.key_id} does not verify`;
    verified.add(`${botId}#${keyId}`);
  }
  const missing = e.signers.find((s) => !verified.has(s.key));
  return missing ? `signer ${missing.key} has no valid proof` : null;
}

async function verifyAttestationEntry(
  att: Record<string, unknown>,
  bots: Map<string, Bot>,
): Promise<string | null> {
  const sig = att.signature as { key_id: string; value: string };
  const issuer = bots.get(att.issuer as string);
  const key = issuer?.keys.find((k) => k.key_id === sig.key_id);
  if (!key) return `unknown issuer key ${att.issuer}#${sig.key_id}`;
  const ok = await verifyEd25519(
    decodeBase64Url(key.public_key)!,
    decodeBase64Url(sig.value) ?? new Uint8Array(),
    attestationSigningBytes(att),
  );
  return ok ? null : "attestation signature does not verify";
}
