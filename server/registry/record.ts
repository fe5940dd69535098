/**
 * The pure state transitions of every operation on a bot record (its type is in
 * protocol/registry/bot.ts). The server applies them after verification; anyone replaying the
 * audit log applies the same functions to the same entries and gets the same records (replay.ts).
 */
import type { Bot, ControllerT, Key, KeyOriginT, SignerRefT } from "../../protocol/registry/bot.ts";
import type { Operation } from "../../protocol/registry/schemas.ts";
import { normalizePolicy } from "./policy.ts";

/** What the log entry of an operation contributes to the new state. */
export interface OpContext {
  now: string;
  seq: number;
  logHash: string;
  approvedBy: SignerRefT[];
}

/** A key as a client sends it (server-managed fields are ignored). */
export interface KeyInput {
  key_id: string;
  algorithm: "Ed25519";
  public_key: string;
  label: string;
}

/** Every operation that changes a bot record, by its log name. */
export type BotOperation =
  | "create_bot"
  | "update_bot"
  | "add_key"
  | "remove_key"
  | "rotate_key"
  | "revoke_bot";

/** The policy operation each HTTP operation is governed by. */
export const POLICY_OPERATION: Record<Exclude<BotOperation, "create_bot">, Operation> = {
  update_bot: "update",
  add_key: "add_key",
  remove_key: "revoke_key",
  rotate_key: "rotate_key",
  revoke_bot: "revoke_bot",
};

// deno-lint-ignore no-explicit-any
type Payload = Record<string, any>;

/** Applies `operation` with `payload` (the signed body minus proofs) to `bot`; returns the new record. */
export function applyOperation(
  operation: BotOperation,
  bot: Bot | null,
  payload: Payload,
  params: { botId: string; keyId?: string },
  ctx: OpContext,
): Bot {
  if (operation === "create_bot") return createRecord(payload, ctx);
  if (!bot) throw new Error(`${operation} needs an existing record`);
  const next: Bot = structuredClone(bot);
  next.version = bot.version + 1;
  next.updated_at = ctx.now;
  switch (operation) {
    case "update_bot":
      updateRecord(next, bot, payload, ctx);
      break;
    case "add_key":
      next.keys.push(newKey(payload.key, ctx, "add_key"));
      break;
    case "remove_key":
      revokeKey(next, params.keyId!, payload.reason, ctx.now);
      break;
    case "rotate_key": {
      revokeKey(next, payload.old_key_id, "rotated", ctx.now);
      const old = next.keys.find((k) => k.key_id === payload.old_key_id)!;
      old.replaced_by = payload.new_key.key_id;
      next.keys.push(newKey(payload.new_key, ctx, "rotate_key", payload.old_key_id));
      for (const ref of Object.values(next.policy.signers)) {
        if (ref.bot_id === undefined && ref.key_id === payload.old_key_id) {
          ref.key_id = payload.new_key.key_id;
        }
      }
      break;
    }
    case "revoke_bot":
      next.status = "revoked";
      next.revoked_at = ctx.now;
      if (payload.reason) next.revocation_reason = payload.reason;
      for (const k of next.keys) {
        if (k.status === "active") revokeKey(next, k.key_id, "bot revoked", ctx.now);
      }
      break;
  }
  return shape(next);
}

function createRecord(p: Payload, ctx: OpContext): Bot {
  return shape({
    bot_id: p.bot_id,
    name: p.name ?? "",
    description: p.description ?? "",
    status: "active",
    owner: p.owner ?? undefined,
    keys: (p.keys as KeyInput[]).map((k) => newKey(k, ctx, "create_bot")),
    controllers: (p.controllers ?? []).map((c: Payload) => controller(c, ctx.now)),
    policy: normalizePolicy(p.policy, p.bot_id),
    endpoints: p.endpoints ?? [],
    capabilities: [...new Set<string>(p.capabilities ?? [])],
    delegation: p.delegation ?? undefined,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  });
}

function updateRecord(next: Bot, old: Bot, p: Payload, ctx: OpContext): void {
  if ("name" in p) next.name = p.name;
  if ("description" in p) next.description = p.description;
  if ("owner" in p) next.owner = p.owner ?? undefined;
  if ("delegation" in p) next.delegation = p.delegation ?? undefined;
  if ("endpoints" in p) next.endpoints = p.endpoints;
  if ("capabilities" in p) next.capabilities = [...new Set<string>(p.capabilities)];
  if ("policy" in p) next.policy = normalizePolicy(p.policy, old.bot_id);
  if ("controllers" in p) {
    next.controllers = (p.controllers as Payload[]).map((c) => {
      const existing = old.controllers.find((o) => o.bot_id === c.bot_id);
      return controller(c, existing?.added_at ?? ctx.now);
    });
  }
}

function controller(c: Payload, addedAt: string): ControllerT {
  return c.label === undefined
    ? { bot_id: c.bot_id, added_at: addedAt }
    : { bot_id: c.bot_id, label: c.label, added_at: addedAt };
}

function newKey(
  k: KeyInput,
  ctx: OpContext,
  operation: KeyOriginT["operation"],
  rotatedFrom?: string,
): Key {
  return {
    key_id: k.key_id,
    algorithm: "Ed25519",
    public_key: k.public_key,
    label: k.label,
    status: "active",
    created_at: ctx.now,
    origin: {
      operation,
      seq: ctx.seq,
      log_hash: ctx.logHash,
      ...(rotatedFrom ? { rotated_from: rotatedFrom } : {}),
      approved_by: ctx.approvedBy,
    },
  };
}

function revokeKey(bot: Bot, keyId: string, reason: string | undefined, now: string): void {
  const key = bot.keys.find((k) => k.key_id === keyId)!;
  key.status = "revoked";
  key.revoked_at = now;
  if (reason) key.revocation_reason = reason;
}

/** A bot record's fields in the documented order. */
const BOT_FIELDS = [
  "bot_id",
  "name",
  "description",
  "status",
  "owner",
  "keys",
  "controllers",
  "policy",
  "endpoints",
  "capabilities",
  "delegation",
  "created_at",
  "updated_at",
  "revoked_at",
  "revocation_reason",
  "version",
] as const satisfies readonly (keyof Bot)[];

/** A key's fields in the documented order. */
const KEY_FIELDS = [
  "key_id",
  "algorithm",
  "public_key",
  "label",
  "status",
  "created_at",
  "revoked_at",
  "revocation_reason",
  "replaced_by",
  "origin",
] as const satisfies readonly (keyof Key)[];

/** The `fields` of `from` that are present, in that order. */
function ordered<T extends object>(from: T, fields: readonly (keyof T)[]): T {
  const out: Partial<T> = {};
  for (const f of fields) if (from[f] !== undefined) out[f] = from[f];
  return out as T;
}

/** Puts a record's fields (and its keys') in the documented order and drops absent optional ones. */
export function shape(b: Bot): Bot {
  return { ...ordered(b, BOT_FIELDS), keys: b.keys.map((k) => ordered(k, KEY_FIELDS)) };
}
