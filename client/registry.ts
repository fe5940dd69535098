/**
 * A typed client for the bot identity registry: key generation, proof signing (RFC 7797 detached
 * JWS over JCS) and one method per operation. Used by `signet bot …` and by the tests.
 */
import { decodeBase64Url, encodeBase64Url } from "../protocol/registry/base64url.ts";
import { canonicalBytes, canonicalJson } from "../protocol/registry/jcs.ts";
import {
  encodeHeader,
  proofHeader,
  sha256Base64Url,
  signingInput,
} from "../protocol/registry/jws.ts";
import type { Bot } from "../protocol/registry/bot.ts";
import type { AttestationT, LogEntryT, ProofT, SignerSetT } from "../protocol/registry/schemas.ts";

/** A private signing key and the names it signs under. */
export interface Signer {
  /** The key id within its bot. */
  keyId: string;
  /** The bot this key belongs to, when known (needed to sign as a controller). */
  botId?: string;
  /** Unpadded base64url of the 32-byte public key. */
  publicKey: string;
  privateKey: CryptoKey;
}

/** The on-disk form of a key (`signet bot keygen`): a JSON object, file mode 0600. */
export interface KeyFile {
  key_id: string;
  algorithm: "Ed25519";
  public_key: string;
  /** Unpadded base64url of the 32-byte private seed (JWK `d`). */
  private_key: string;
  bot_id?: string;
  label?: string;
}

/** Generates a new Ed25519 key pair. */
export async function generateKeyFile(
  keyId: string,
  opts: { botId?: string; label?: string } = {},
): Promise<KeyFile> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return {
    key_id: keyId,
    algorithm: "Ed25519",
    public_key: jwk.x!,
    private_key: jwk.d!,
    ...(opts.botId ? { bot_id: opts.botId } : {}),
    ...(opts.label ? { label: opts.label } : {}),
  };
}

/** Turns a key file into a Signer. */
export async function signerFromKeyFile(file: KeyFile): Promise<Signer> {
  if (
    decodeBase64Url(file.private_key)?.length !== 32 ||
    decodeBase64Url(file.public_key)?.length !== 32
  ) {
    throw new Error(`key file for ${file.key_id} does not hold a 32-byte Ed25519 key pair`);
  }
  const privateKey = await crypto.subtle.importKey(
    "jwk",
    { kty: "OKP", crv: "Ed25519", d: file.private_key, x: file.public_key },
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  return { keyId: file.key_id, botId: file.bot_id, publicKey: file.public_key, privateKey };
}

/** The public part of a signer, as a PublicKey for records. */
export function publicKeyOf(s: Signer | KeyFile, label?: string) {
  const keyId = "keyId" in s ? s.keyId : s.key_id;
  const pub = "publicKey" in s ? s.publicKey : s.public_key;
  return { key_id: keyId, algorithm: "Ed25519" as const, public_key: pub, label: label ?? keyId };
}

/** The `kid` a signer uses when signing for `targetBot`. */
export function kidFor(signer: Signer, targetBot: string): string {
  return signer.botId && signer.botId !== targetBot
    ? `${signer.botId}#${signer.keyId}`
    : signer.keyId;
}

/** Signs the canonical form of `payload` for `method path` with `nonce`; returns the Proof. */
export async function signProof(
  payload: Record<string, unknown>,
  opts: {
    method: string;
    path: string;
    nonce: string;
    signer: Signer;
    kid: string;
    created?: Date;
  },
): Promise<ProofT> {
  const header = encodeHeader(proofHeader(opts.kid, opts.nonce, opts.method, opts.path));
  const input = signingInput(header, canonicalBytes(payload));
  const sig = new Uint8Array(
    await crypto.subtle.sign("Ed25519", opts.signer.privateKey, input as BufferSource),
  );
  return {
    algorithm: "Ed25519",
    key_id: opts.kid,
    created: (opts.created ?? new Date()).toISOString(),
    jws: `${header}..${encodeBase64Url(sig)}`,
    nonce: opts.nonce,
  };
}

/** Signs `payload` with one signer (→ `proof`) or several (→ `proof_set`); returns the body to send. */
export async function signBody(
  payload: Record<string, unknown>,
  opts: { method: string; path: string; nonce: string; signers: Signer[]; targetBot: string },
): Promise<Record<string, unknown>> {
  const proofs: ProofT[] = [];
  for (const signer of opts.signers) {
    proofs.push(await signProof(payload, { ...opts, signer, kid: kidFor(signer, opts.targetBot) }));
  }
  if (proofs.length === 1) return { ...payload, proof: proofs[0] };
  const proofSet: SignerSetT = { payload_sha256: sha256Base64Url(canonicalBytes(payload)), proofs };
  return { ...payload, proof_set: proofSet };
}

/** What an attestation says, before it is signed. */
export interface AttestationContent {
  issuer: string;
  subject: string;
  claim: string;
  evidence?: { type: string; value: string }[];
}

/** Signs an attestation (issuer, subject, claim, evidence) with an issuer key. */
export async function signAttestation(
  content: AttestationContent,
  signer: Signer,
): Promise<AttestationT> {
  const bytes = new TextEncoder().encode(canonicalJson(content));
  const sig = new Uint8Array(await crypto.subtle.sign("Ed25519", signer.privateKey, bytes));
  return {
    ...content,
    signature: { key_id: signer.keyId, algorithm: "Ed25519", value: encodeBase64Url(sig) },
  };
}

/** A non-2xx answer from the registry. */
export class RegistryError extends Error {
  constructor(readonly status: number, message: string) {
    super(`${status}: ${message}`);
  }
}

/** A raw response: status, parsed JSON body and headers. */
export interface RawResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** Client for one registry base URL. */
export class RegistryClient {
  constructor(readonly baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  /** Sends a request; returns status, parsed body and headers without throwing on errors. */
  async raw<T = unknown>(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<RawResponse<T>> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
      body,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<T> {
    const res = await this.raw<T>(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      headers,
    );
    if (res.status >= 300) {
      const msg = (res.body as { error?: string })?.error ?? String(res.body);
      throw new RegistryError(res.status, msg);
    }
    return res.body;
  }

  /** A fresh nonce. */
  async nonce(): Promise<string> {
    return (await this.call<{ nonce: string }>("GET", "/v1/nonce")).nonce;
  }

  /** Builds the signed body of a mutation (fetching a nonce). */
  async signed(
    method: string,
    path: string,
    payload: Record<string, unknown>,
    signers: Signer[],
    targetBot: string,
  ): Promise<Record<string, unknown>> {
    if (signers.length === 0) throw new Error("at least one signing key is needed");
    return signBody(payload, { method, path, nonce: await this.nonce(), signers, targetBot });
  }

  private async mutate(
    method: string,
    path: string,
    payload: Record<string, unknown>,
    signers: Signer[],
    targetBot: string,
    ifMatch?: number,
  ): Promise<Bot> {
    const body = await this.signed(method, path, payload, signers, targetBot);
    return this.call<Bot>(
      method,
      path,
      body,
      ifMatch === undefined ? {} : { "If-Match": `"${ifMatch}"` },
    );
  }

  /** Reads a bot. */
  getBot(botId: string): Promise<Bot> {
    return this.call("GET", `/v1/bots/${encodeURIComponent(botId)}`);
  }

  /** Creates a bot; `signers` must hold keys listed in `record.keys`. */
  createBot(record: Record<string, unknown> & { bot_id: string }, signers: Signer[]): Promise<Bot> {
    return this.mutate("POST", "/v1/bots", record, signers, record.bot_id);
  }

  /** Updates mutable fields (fetches the record to send its keys and version). */
  async updateBot(
    botId: string,
    changes: Record<string, unknown>,
    signers: Signer[],
    opts: { ifMatch?: number } = {},
  ): Promise<Bot> {
    const current = await this.getBot(botId);
    const keys = current.keys.map((k) => ({
      key_id: k.key_id,
      algorithm: k.algorithm,
      public_key: k.public_key,
      label: k.label,
    }));
    return this.mutate(
      "PATCH",
      `/v1/bots/${encodeURIComponent(botId)}`,
      { bot_id: botId, keys, ...changes },
      signers,
      botId,
      opts.ifMatch,
    );
  }

  /** Adds a key. */
  addKey(botId: string, key: ReturnType<typeof publicKeyOf>, signers: Signer[]): Promise<Bot> {
    return this.mutate(
      "POST",
      `/v1/bots/${encodeURIComponent(botId)}/keys`,
      { key },
      signers,
      botId,
    );
  }

  /** Revokes a key. */
  removeKey(botId: string, keyId: string, signers: Signer[], reason?: string): Promise<Bot> {
    const path = `/v1/bots/${encodeURIComponent(botId)}/keys/${encodeURIComponent(keyId)}`;
    return this.mutate("DELETE", path, reason ? { reason } : {}, signers, botId);
  }

  /** Replaces `oldKeyId` by `newKey`. */
  rotateKey(
    botId: string,
    oldKeyId: string,
    newKey: ReturnType<typeof publicKeyOf>,
    signers: Signer[],
  ): Promise<Bot> {
    return this.mutate(
      "POST",
      `/v1/bots/${encodeURIComponent(botId)}/rotate`,
      { old_key_id: oldKeyId, new_key: newKey },
      signers,
      botId,
    );
  }

  /** Revokes the bot. */
  revokeBot(botId: string, signers: Signer[], reason?: string): Promise<Bot> {
    return this.mutate(
      "POST",
      `/v1/bots/${encodeURIComponent(botId)}/revoke`,
      reason ? { reason } : {},
      signers,
      botId,
    );
  }

  /** Signs and publishes an attestation. */
  async attest(content: AttestationContent, signer: Signer): Promise<AttestationT> {
    const attestation = await signAttestation(content, signer);
    return this.call("POST", "/v1/attestations", { attestation, format: "jcs-ed25519" });
  }

  /** Attestations about (or, with role issuer, by) a bot. */
  attestations(
    botId: string,
    opts: { role?: "subject" | "issuer"; limit?: number; cursor?: string } = {},
  ) {
    return this.call<{ attestations: AttestationT[]; next_cursor: string | null }>(
      "GET",
      `/v1/bots/${encodeURIComponent(botId)}/attestations${query(opts)}`,
    );
  }

  /** One search page. */
  search(
    params: { q?: string; status?: string; capability?: string; limit?: number; cursor?: string } =
      {},
  ) {
    return this.call<{ results: Bot[]; next_cursor: string | null }>(
      "GET",
      `/v1/search${query(params)}`,
    );
  }

  /** Registry statistics. */
  stats(): Promise<Record<string, unknown>> {
    return this.call("GET", "/v1/stats");
  }

  /** Every audit log entry (of one bot, or of the whole registry), following pages. */
  async log(botId?: string): Promise<LogEntryT[]> {
    const out: LogEntryT[] = [];
    let after = 0;
    while (true) {
      const base = botId ? `/v1/bots/${encodeURIComponent(botId)}/log` : "/v1/log";
      const page = await this.call<{ entries: LogEntryT[]; next_after: number | null }>(
        "GET",
        `${base}?after=${after}&limit=1000`,
      );
      out.push(...page.entries);
      if (page.next_after === null) return out;
      after = page.next_after;
    }
  }
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
