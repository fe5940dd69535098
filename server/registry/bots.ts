/**
 * The registry's write path. Each mutation runs in two phases:
 * 1. (outside any transaction) split off and verify every proof's JWS, nonce MAC and lifetime, and
 *    Ed25519 signature;
 * 2. (one transaction, after taking the audit log's lock) reload the bot and the controllers it
 *    names, re-check that each verifying key still belongs to it unchanged, check the operation
 *    (404/409/400/412), enforce the policy, consume the nonces (a replayed one is refused here),
 *    append the audit log entry and store the new record.
 * The log's lock serializes phase 2 across writers (and instances), so none is lost and the chain
 * never forks.
 */
import type { Resources, Transaction } from "../../db/store.ts";
import type { BotWrite } from "../../db/registry_bots.ts";
import { DomainError } from "../../protocol/errors.ts";
import { registryOperations } from "../metrics.ts";
import { nextEntry } from "./audit.ts";
import {
  type BotLookup,
  enforce,
  qualify,
  type Requirement,
  requirementsFor,
  validatePolicy,
} from "./policy.ts";
import { splitProofs, type VerifiedSignature, verifyProofs } from "./proofs.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import { applyOperation, type BotOperation, POLICY_OPERATION } from "./record.ts";
import type { RegistryContext } from "./context.ts";
import { MAX_KEYS } from "../../protocol/registry/schemas.ts";
import { checkOperation } from "./operation_checks.ts";

/** A mutation as the HTTP layer hands it over. */
export interface MutationRequest {
  operation: BotOperation;
  /** Target bot (for create: the body's bot_id). */
  botId: string;
  /** Key of remove_key. */
  keyId?: string;
  method: string;
  /** The request path exactly as sent (what `htu` must equal). */
  path: string;
  /** The parsed body as received, already schema-validated. */
  body: Record<string, unknown>;
  /** Value of If-Match, if sent. */
  ifMatch?: string | null;
}

/** Reads a bot record (through `from`: the store, or a transaction), or undefined. */
export async function findBot(from: Resources, botId: string): Promise<Bot | undefined> {
  const row = await from.bots.loadRow(botId);
  return row === undefined ? undefined : JSON.parse(row.record) as Bot;
}

/** Reads a bot record or throws 404. */
export async function getBot(from: Resources, botId: string): Promise<Bot> {
  const bot = await findBot(from, botId);
  if (!bot) throw new DomainError("not_found", `bot ${botId} not found`);
  return bot;
}

/**
 * A synchronous lookup over the records of `botIds`, read now (the policy rules look up the
 * controllers a record names, and only those). Looking up any other bot is a bug, not a miss.
 * The reads are issued together (one round trip on an engine that pipelines them); `known` holds
 * records already read in the same transaction.
 */
export async function loadLookup(
  from: Resources,
  botIds: Iterable<string>,
  known: ReadonlyMap<string, Bot | undefined> = new Map(),
): Promise<BotLookup> {
  const wanted = new Set(botIds);
  const records = await loadRecords(from, [...wanted].filter((id) => !known.has(id)));
  for (const id of wanted) if (known.has(id)) records.set(id, known.get(id));
  return (id) => {
    if (!records.has(id)) throw new Error(`bot ${id} was looked up but not loaded`);
    return records.get(id);
  };
}

// The records of `botIds`, read together.
async function loadRecords(
  from: Resources,
  botIds: Iterable<string>,
): Promise<Map<string, Bot | undefined>> {
  const records = new Map<string, Bot | undefined>();
  await Promise.all(
    [...new Set(botIds)].map(async (id) => records.set(id, await findBot(from, id))),
  );
  return records;
}

/** The ids of the controllers `records` name (absent or malformed lists name none). */
function controllerIds(...records: ({ controllers?: unknown } | null | undefined)[]): string[] {
  const ids: string[] = [];
  for (const r of records) {
    if (!Array.isArray(r?.controllers)) continue;
    for (const c of r.controllers) if (typeof c?.bot_id === "string") ids.push(c.bot_id);
  }
  return ids;
}

/** Runs a registry write and counts it in `signet_registry_operations_total` by outcome. */
export async function counted<T>(operation: string, write: () => Promise<T>): Promise<T> {
  try {
    const result = await write();
    registryOperations.inc({ operation, result: "ok" });
    return result;
  } catch (err) {
    const result = err instanceof DomainError
      ? err.kind
      : err instanceof PreconditionFailed
      ? "precondition_failed"
      : "error";
    registryOperations.inc({ operation, result });
    throw err;
  }
}

/** A mutation's outcome: the new record, and its JSON text as stored (what reads return). */
export interface MutationResult {
  bot: Bot;
  record: string;
}

/** Verifies, authorizes and applies one mutation; returns the new record. */
export function mutateBot(rc: RegistryContext, req: MutationRequest): Promise<MutationResult> {
  return counted(req.operation, () => applyMutation(rc, req));
}

async function applyMutation(rc: RegistryContext, req: MutationRequest): Promise<MutationResult> {
  // Announced before verifying, so a group commit about to run waits for this write to join it.
  const submitted = rc.store.expectTransaction();
  let committed: Promise<MutationResult>;
  try {
    committed = rc.store.transaction(await verifyMutation(rc, req));
  } finally {
    submitted();
  }
  return await committed;
}

// Phase 1 (verification); returns phase 2, the transaction to run.
async function verifyMutation(
  rc: RegistryContext,
  req: MutationRequest,
): Promise<(tx: Transaction) => Promise<MutationResult>> {
  const split = splitProofs(req.body);
  const payload = split.payload;
  const creating = req.operation === "create_bot";
  const nowMs = rc.now();

  // Phase 1: cheap state checks for a clear error, then signature verification.
  let target: Bot;
  if (creating) {
    if (await findBot(rc.store, req.botId)) {
      throw new DomainError("conflict", `bot ${req.botId} already exists`);
    }
    target = applyOperation("create_bot", null, payload, { botId: req.botId }, {
      now: new Date(nowMs).toISOString(),
      seq: 0,
      logHash: "",
      approvedBy: [],
    });
  } else {
    target = mustBeActive(await getBot(rc.store, req.botId));
  }
  const signatures = await verifyProofs(split, {
    method: req.method,
    path: req.path,
    target,
    ownKeysOnly: creating,
    lookup: await loadLookup(rc.store, controllerIds(target)),
    nonceKey: rc.nonceKey,
    nowMs,
  });

  // Phase 2: one transaction, serialized with every other registry write by the log's lock.
  return async (tx) => {
    await tx.log.lock();
    const now = new Date(rc.now()).toISOString();
    // The bot itself and the records phase 1 knew it would need, read together.
    const [found, early] = await Promise.all([
      findBot(tx, req.botId),
      loadRecords(
        tx,
        [...controllerIds(target, payload), ...signatures.map((s) => s.botId)]
          .filter((id) => id !== req.botId),
      ),
    ]);
    let current: Bot | null = null;
    if (creating) {
      if (found) throw new DomainError("conflict", `bot ${req.botId} already exists`);
    } else {
      if (!found) throw new DomainError("not_found", `bot ${req.botId} not found`);
      current = mustBeActive(found);
      checkIfMatch(current, req.ifMatch);
    }
    early.set(req.botId, found);
    const lookup = await loadLookup(tx, [
      ...controllerIds(current, target, payload),
      ...signatures.map((s) => s.botId),
    ], early);
    const state = current ?? target;
    const signers = stillValid(signatures, state, lookup);
    const check = checkOperation(req, current, payload, lookup);
    const reqs: Requirement[] = creating
      ? [{
        operation: "create_bot",
        threshold: 1,
        eligible: new Set(target.keys.map((k) => qualify(target.bot_id, k.key_id))),
      }]
      : requirementsFor(
        current!,
        POLICY_OPERATION[req.operation as Exclude<BotOperation, "create_bot">],
        lookup,
        {
          policyChange: check.policyChange,
        },
      );
    if (split.proof && signatures.length === 1) explainSingleSigner(signatures[0], state, lookup);
    const approvedBy = enforce(reqs, signers);

    const { entry, row } = nextEntry(await tx.log.head(), {
      botId: req.botId,
      operation: req.operation,
      method: req.method,
      path: req.path,
      now,
      nowMs: Date.parse(now),
      body: split.canonicalText,
      proof: split.proof,
      proofSet: split.proofSet,
      signers: approvedBy,
      version: (current?.version ?? 0) + 1,
    });
    const next = applyOperation(req.operation, current, payload, {
      botId: req.botId,
      keyId: req.keyId,
    }, {
      now,
      seq: entry.seq,
      logHash: entry.hash,
      approvedBy,
    });
    const write = botWrite(next);
    // The nonces, the log entry and the record go to the database together (one round trip on an
    // engine that pipelines them); what they answered is checked after, and a failed check rolls
    // all of them back with the transaction.
    const fresh = signatures.filter((sig) => !isRepeatInThisRequest(sig, signatures));
    const [marked] = await together(
      Promise.all(fresh.map((sig) => tx.nonces.markUsed(sig.nonce, sig.nonceExpiresMs))),
      tx.log.append(row),
      tx.bots.save(write),
    );
    if (marked.includes(false)) {
      throw new DomainError(
        "invalid",
        "nonce has already been used (replay); get a new one from GET /v1/nonce",
      );
    }
    checkStoredRecord(next, current, lookup);
    return { bot: next, record: write.record };
  };
}

/** Waits for every one of `calls`; then throws the first failure, in order, or returns all. */
async function together<T extends unknown[]>(
  ...calls: { [K in keyof T]: Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(calls);
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as T;
}

/**
 * The bounds every record keeps, whichever write produced it (checked on the record about to be
 * stored, so no write path can skip one): no write takes it past MAX_KEYS keys, revoked ones
 * included (409; a record stored with more before the bound was enforced may still lose keys or be
 * revoked); and while the bot is active, an active key, then a policy that can be satisfied (400).
 */
function checkStoredRecord(next: Bot, previous: Bot | null, lookup: BotLookup): void {
  if (next.keys.length > MAX_KEYS && next.keys.length > (previous?.keys.length ?? 0)) {
    throw new DomainError(
      "conflict",
      `bot ${next.bot_id} already holds ${MAX_KEYS} keys (revoked ones included), the most a record can hold: no key can be added or rotated in`,
    );
  }
  if (next.status !== "active") return;
  if (!next.keys.some((k) => k.status === "active")) {
    throw new DomainError(
      "invalid",
      `cannot revoke the last active key of bot ${next.bot_id}; revoke the bot instead`,
    );
  }
  validatePolicy(next, lookup);
}

function mustBeActive(bot: Bot): Bot {
  if (bot.status !== "active") {
    throw new DomainError("invalid", `bot ${bot.bot_id} is revoked and accepts no more changes`);
  }
  return bot;
}

function checkIfMatch(bot: Bot, ifMatch: string | null | undefined): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch.trim() === "*") return;
  const wanted = ifMatch.split(",").map((s) =>
    s.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1")
  );
  if (!wanted.includes(String(bot.version))) {
    throw new PreconditionFailed(
      `record version is ${bot.version}, but If-Match asked for ${ifMatch.trim()}; fetch the record again`,
    );
  }
}

/** A stale If-Match (HTTP 412). */
export class PreconditionFailed extends Error {}

// A nonce may be shared by several items of one proof set; it is consumed once.
function isRepeatInThisRequest(sig: VerifiedSignature, all: VerifiedSignature[]): boolean {
  return all.indexOf(sig) !== all.findIndex((s) => s.nonce === sig.nonce);
}

// Keeps the signers whose key still exists with the same material (it may have changed meanwhile).
function stillValid(signatures: VerifiedSignature[], state: Bot, lookup: BotLookup): Set<string> {
  const out = new Set<string>();
  for (const sig of signatures) {
    const bot = sig.botId === state.bot_id ? state : lookup(sig.botId);
    const key = bot?.keys.find((k) => k.key_id === sig.keyId);
    if (key && key.public_key === sig.publicKey) out.add(sig.signer);
  }
  return out;
}

function explainSingleSigner(sig: VerifiedSignature, state: Bot, lookup: BotLookup): void {
  const bot = sig.botId === state.bot_id ? state : lookup(sig.botId);
  const key = bot?.keys.find((k) => k.key_id === sig.keyId);
  if (bot && bot.status !== "active") {
    throw new DomainError("invalid", `proof: signing bot ${bot.bot_id} is revoked`);
  }
  if (key && key.status !== "active") {
    throw new DomainError("invalid", `proof: key ${sig.signer} is revoked and cannot sign`);
  }
}

/** Writes `bot` and its index rows (inside the caller's transaction); returns the stored JSON text. */
export async function storeBot(tx: Transaction, bot: Bot): Promise<string> {
  const write = botWrite(bot);
  await tx.bots.save(write);
  return write.record;
}

/** What the store keeps for `bot`: its JSON text and the columns its indexes need. */
export function botWrite(bot: Bot): BotWrite {
  const record = JSON.stringify(bot);
  return {
    botId: bot.bot_id,
    status: bot.status,
    searchText: `${bot.bot_id}\n${bot.name}\n${bot.description}`.toLowerCase(),
    record,
    version: bot.version,
    createdAt: bot.created_at,
    updatedAt: bot.updated_at,
    keys: bot.keys.map((k) => ({ keyId: k.key_id, publicKey: k.public_key, status: k.status })),
    capabilities: bot.capabilities,
    controllers: bot.controllers.map((c) => c.bot_id),
  };
}
