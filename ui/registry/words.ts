/** Plain-language descriptions of registry concepts: operations, policy rules, log entries. */
import type { KeyRef, Policy, PolicyRule } from "./types.ts";

const OPERATION_LABELS: Record<string, string> = {
  create_bot: "Bot created",
  update: "Record updated",
  update_bot: "Record updated",
  add_key: "Key added",
  revoke_key: "Key revoked",
  remove_key: "Key revoked",
  rotate_key: "Key rotated",
  rotate: "Key rotated",
  revoke_bot: "Bot revoked",
  revoke: "Bot revoked",
  publish_attestation: "Attestation published",
};

/** A short human title for an audit log operation. */
export function operationLabel(op: string): string {
  return OPERATION_LABELS[op] ?? op.replace(/_/g, " ");
}

/** Tone of a timeline dot for an operation. */
export function operationTone(op: string): "success" | "danger" | "info" | "neutral" {
  if (op === "create_bot" || op === "add_key") return "success";
  if (op.startsWith("revoke") || op === "remove_key") return "danger";
  if (op.startsWith("rotate") || op.startsWith("update")) return "info";
  return "neutral";
}

/** `k1` for this bot's key, `other-bot#k1` for a controller's. */
export function keyRefText(ref: KeyRef): string {
  return ref.bot_id ? `${ref.bot_id}#${ref.key_id}` : ref.key_id;
}

/** "revoke_bot needs 2 of: k1, k2, k3". */
export function ruleSentence(rule: PolicyRule): string {
  const n = rule.signers.length;
  if (rule.threshold >= n && n === 1) return `${rule.operation} needs ${rule.signers[0]}`;
  if (rule.threshold >= n) return `${rule.operation} needs all ${n} of: ${rule.signers.join(", ")}`;
  return `${rule.operation} needs ${rule.threshold} of: ${rule.signers.join(", ")}`;
}

/** The sentence for operations without their own rule. */
export function defaultSentence(policy: Policy): string {
  const m = policy.default_threshold;
  const sigs = m === 1 ? "1 signature" : `${m} signatures`;
  const covered = new Set(policy.rules.map((r) => r.operation));
  const prefix = covered.size > 0 ? "Every other operation" : "Every operation";
  return `${prefix} needs ${sigs} from any active key of this bot or its controllers.`;
}
