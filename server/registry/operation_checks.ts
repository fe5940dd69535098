/**
 * The checks each registry operation makes on the record it changes, before its policy is
 * enforced: ids and key material unique, an update's keys unchanged, controllers that exist and are
 * active, the key a rotate or remove names (404/409/400). Called by the write path (bots.ts).
 */
import { DomainError } from "../../protocol/errors.ts";
import { canonicalJson } from "../../protocol/registry/jcs.ts";
import type { Bot } from "../../protocol/registry/bot.ts";
import { type BotLookup, normalizePolicy } from "./policy.ts";
import type { BotOperation } from "./record.ts";

/** What a check needs of a mutation: its operation, its bot, and the key of a remove_key. */
export interface OperationTarget {
  operation: BotOperation;
  botId: string;
  keyId?: string;
}

// deno-lint-ignore no-explicit-any
export type Payload = Record<string, any>;

/** Operation-specific checks before applying; returns whether the policy or controllers change. */
export function checkOperation(
  req: OperationTarget,
  current: Bot | null,
  p: Payload,
  lookup: BotLookup,
): { policyChange: boolean } {
  switch (req.operation) {
    case "create_bot": {
      uniqueKeys(p.keys);
      checkControllers(req.botId, p.controllers ?? [], [], lookup);
      return { policyChange: false };
    }
    case "update_bot": {
      const bot = current!;
      if (p.bot_id !== bot.bot_id) {
        throw new DomainError(
          "invalid",
          `bot_id in the body (${p.bot_id}) must equal the bot in the path (${bot.bot_id})`,
        );
      }
      sameKeys(bot, p.keys);
      const oldControllers = bot.controllers.map((c) => c.bot_id);
      if ("controllers" in p) checkControllers(bot.bot_id, p.controllers, oldControllers, lookup);
      const policyChange = ("policy" in p &&
        canonicalJson(normalizePolicy(p.policy, bot.bot_id)) !== canonicalJson(bot.policy)) ||
        ("controllers" in p &&
          canonicalJson((p.controllers as Payload[]).map((c) => c.bot_id).sort()) !==
            canonicalJson([...oldControllers].sort()));
      return { policyChange };
    }
    case "add_key":
      noKeyConflict(current!, p.key);
      return { policyChange: false };
    case "remove_key": {
      const key = current!.keys.find((k) => k.key_id === req.keyId);
      if (!key) {
        throw new DomainError("not_found", `key ${req.keyId} not found in bot ${current!.bot_id}`);
      }
      if (key.status !== "active") {
        throw new DomainError("invalid", `key ${req.keyId} is already revoked`);
      }
      return { policyChange: false };
    }
    case "rotate_key": {
      const key = current!.keys.find((k) => k.key_id === p.old_key_id);
      if (!key) {
        throw new DomainError(
          "not_found",
          `old key ${p.old_key_id} not found in bot ${current!.bot_id}`,
        );
      }
      if (key.status !== "active") {
        throw new DomainError("invalid", `old key ${p.old_key_id} is already revoked`);
      }
      noKeyConflict(current!, p.new_key);
      return { policyChange: false };
    }
    case "revoke_bot":
      return { policyChange: false };
  }
}

function uniqueKeys(keys: Payload[]): void {
  const ids = new Set<string>();
  const material = new Set<string>();
  for (const k of keys) {
    if (ids.has(k.key_id)) throw new DomainError("invalid", `key id ${k.key_id} appears twice`);
    if (material.has(k.public_key)) {
      throw new DomainError("invalid", `key ${k.key_id} repeats the key material of another key`);
    }
    ids.add(k.key_id);
    material.add(k.public_key);
  }
}

function noKeyConflict(bot: Bot, key: Payload): void {
  if (bot.keys.some((k) => k.key_id === key.key_id)) {
    throw new DomainError("conflict", `key id ${key.key_id} already exists in bot ${bot.bot_id}`);
  }
  const same = bot.keys.find((k) => k.public_key === key.public_key);
  if (same) {
    throw new DomainError(
      "conflict",
      `key material already exists in bot ${bot.bot_id} (key ${same.key_id})`,
    );
  }
}

/**
 * An update's `keys` must be the record's keys, revoked ones included, in any order, each with its
 * key_id, public_key and label unchanged (server-managed fields in them are ignored).
 */
function sameKeys(bot: Bot, keys: Payload[]): void {
  const refuse = (problem: string): never => {
    throw new DomainError(
      "invalid",
      `keys cannot be changed by update: ${problem}; send the bot's current keys unchanged, revoked ones included (use add-key, remove-key or rotate to change them)`,
    );
  };
  const given = new Map<string, Payload>();
  for (const k of keys) {
    if (given.has(k.key_id)) refuse(`key ${k.key_id} is listed twice`);
    given.set(k.key_id, k);
  }
  for (const k of bot.keys) {
    const sent = given.get(k.key_id);
    if (!sent) refuse(`key ${k.key_id} is missing`);
    else if (sent.public_key !== k.public_key) refuse(`key ${k.key_id} has other key material`);
    else if (sent.label !== k.label) {
      refuse(
        `key ${k.key_id} has label ${JSON.stringify(sent.label)}, not ${JSON.stringify(k.label)}`,
      );
    }
  }
  const unknown = keys.find((k) => !bot.keys.some((b) => b.key_id === k.key_id));
  if (unknown) refuse(`key ${unknown.key_id} is not a key of bot ${bot.bot_id}`);
}

function checkControllers(
  botId: string,
  list: Payload[],
  existing: string[],
  lookup: BotLookup,
): void {
  const seen = new Set<string>();
  for (const c of list) {
    if (c.bot_id === botId) {
      throw new DomainError("invalid", `bot ${botId} cannot be its own controller`);
    }
    if (seen.has(c.bot_id)) {
      throw new DomainError("invalid", `controller ${c.bot_id} is listed twice`);
    }
    seen.add(c.bot_id);
    if (existing.includes(c.bot_id)) continue;
    const ctl = lookup(c.bot_id);
    if (!ctl) throw new DomainError("invalid", `controller bot ${c.bot_id} does not exist`);
    if (ctl.status !== "active") {
      throw new DomainError("invalid", `controller bot ${c.bot_id} is revoked`);
    }
  }
}
