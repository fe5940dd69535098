/**
 * Attestations: a statement by an issuer bot about a subject bot, signed by one of the issuer's
 * active keys: Ed25519 over the JCS of the attestation without `signature`. The registry stores
 * them under attestation_id = SHA-256 (hex) of those signed bytes, so publishing is idempotent.
 */
import { createHash } from "node:crypto";
import type { Resources } from "../../db/store.ts";
import { DomainError } from "../../protocol/errors.ts";
import { appendEntry } from "./audit.ts";
import { decodeBase64Url } from "../../protocol/registry/base64url.ts";
import { counted, findBot } from "./bots.ts";
import type { RegistryContext } from "./context.ts";
import { verifyEd25519 } from "./ed25519.ts";
import { canonicalBytes, canonicalJson } from "../../protocol/registry/jcs.ts";
import { qualify } from "./policy.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import type { AttestationT } from "../../protocol/registry/schemas.ts";

/** The bytes an issuer signs: JCS of the attestation minus signature and server-set fields. */
export function attestationSigningBytes(att: Record<string, unknown>): Uint8Array {
  const { signature: _s, attestation_id: _i, published_at: _p, ...content } = att;
  return canonicalBytes(content);
}

/** Verifies and stores an attestation; `created` is false when the same one was already published. */
export function publishAttestation(
  rc: RegistryContext,
  raw: Record<string, unknown>,
): Promise<{ attestation: AttestationT; created: boolean }> {
  return counted("publish_attestation", () => publish(rc, raw));
}

async function publish(
  rc: RegistryContext,
  raw: Record<string, unknown>,
): Promise<{ attestation: AttestationT; created: boolean }> {
  for (const field of ["attestation_id", "published_at"]) {
    if (field in raw) {
      throw new DomainError("invalid", `attestation.${field} is set by the registry; leave it out`);
    }
  }
  const att = raw as unknown as AttestationT;
  const bytes = attestationSigningBytes(raw);
  const issuer = await checkParties(rc.store, att);
  const key = issuerKey(issuer, att.signature.key_id);
  const signature = decodeBase64Url(att.signature.value);
  if (!signature || signature.length !== 64) {
    throw new DomainError(
      "invalid",
      "attestation.signature.value must be 64 bytes in strict unpadded base64url",
    );
  }
  if (!await verifyEd25519(decodeBase64Url(key.public_key)!, signature, bytes)) {
    throw new DomainError(
      "invalid",
      `attestation signature does not verify with key ${qualify(issuer.bot_id, key.key_id)}`,
    );
  }
  const id = createHash("sha256").update(bytes).digest("hex");
  return await rc.store.transaction(async (tx) => {
    await tx.log.lock();
    const again = await checkParties(tx, att);
    if (issuerKey(again, key.key_id).public_key !== key.public_key) {
      throw new DomainError("invalid", "the issuer's key changed while publishing; sign again");
    }
    const existing = await tx.attestations.find(id);
    if (existing) return { attestation: JSON.parse(existing) as AttestationT, created: false };
    const now = new Date(rc.now());
    const stored: AttestationT = {
      attestation_id: id,
      issuer: att.issuer,
      subject: att.subject,
      claim: att.claim,
      ...(att.evidence ? { evidence: att.evidence } : {}),
      published_at: now.toISOString(),
      signature: att.signature,
    };
    await tx.attestations.insert({
      id,
      issuer: att.issuer,
      subject: att.subject,
      record: JSON.stringify(stored),
      publishedAt: stored.published_at!,
    });
    await appendEntry(tx, {
      botId: att.subject,
      operation: "publish_attestation",
      method: "POST",
      path: "/v1/attestations",
      now: stored.published_at!,
      nowMs: now.getTime(),
      body: canonicalJson(raw),
      signers: [{ key: qualify(issuer.bot_id, key.key_id) }],
      version: (await findBot(tx, att.subject))!.version,
    });
    return { attestation: stored, created: true };
  });
}

async function checkParties(from: Resources, att: AttestationT): Promise<Bot> {
  const subject = await findBot(from, att.subject);
  if (!subject) throw new DomainError("not_found", `subject bot ${att.subject} not found`);
  const issuer = await findBot(from, att.issuer);
  if (!issuer) throw new DomainError("not_found", `issuer bot ${att.issuer} not found`);
  if (issuer.status !== "active") {
    throw new DomainError("invalid", `issuer bot ${att.issuer} is revoked`);
  }
  return issuer;
}

function issuerKey(issuer: Bot, keyId: string) {
  const key = issuer.keys.find((k) => k.key_id === keyId);
  if (!key) {
    throw new DomainError("invalid", `key ${keyId} is not a key of issuer bot ${issuer.bot_id}`);
  }
  if (key.status !== "active") {
    throw new DomainError(
      "invalid",
      `key ${qualify(issuer.bot_id, keyId)} is revoked and cannot sign`,
    );
  }
  return key;
}

/** A page of attestations about (role subject) or by (role issuer) a bot, in publication order. */
export async function attestationsOf(
  rc: RegistryContext,
  botId: string,
  opts: { role: "subject" | "issuer"; cursor: string | null; limit: number },
): Promise<{ attestations: AttestationT[]; next_cursor: string | null }> {
  if (!(await findBot(rc.store, botId))) {
    throw new DomainError("not_found", `bot ${botId} not found`);
  }
  let after = 0;
  if (opts.cursor !== null) {
    if (!/^\d{1,15}$/.test(opts.cursor)) throw new DomainError("invalid", "cursor is not valid");
    after = Number(opts.cursor);
  }
  const rows = await rc.store.attestations.list({
    botId,
    role: opts.role,
    afterSeq: after,
    limit: opts.limit + 1,
  });
  const page = rows.slice(0, opts.limit);
  return {
    attestations: page.map((r) => JSON.parse(r.record) as AttestationT),
    next_cursor: rows.length > opts.limit ? String(page[page.length - 1].seq) : null,
  };
}
