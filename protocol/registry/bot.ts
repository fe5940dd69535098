/**
 * The shape of a stored bot record, as every registry read returns it: shared by the server (which
 * stores and transforms records, see server/registry/record.ts) and the client (which reads them).
 */
import type { Operation } from "./schemas.ts";

/** A fully qualified signer. */
export interface SignerRefT {
  key: string;
}

/** How a key entered the record. */
export interface KeyOriginT {
  operation: "create_bot" | "add_key" | "rotate_key";
  seq: number;
  log_hash: string;
  rotated_from?: string;
  approved_by: SignerRefT[];
}

/** A stored key. */
export interface Key {
  key_id: string;
  algorithm: "Ed25519";
  public_key: string;
  label: string;
  status: "active" | "revoked";
  created_at: string;
  revoked_at?: string;
  revocation_reason?: string;
  replaced_by?: string;
  origin: KeyOriginT;
}

/** A reference to a key of this bot (no bot_id) or of a controller. */
export interface KeyRefT {
  key_id: string;
  bot_id?: string;
}

/** A policy rule (operation canonical). */
export interface Rule {
  operation: Operation;
  threshold: number;
  signers: string[];
  description: string;
}

/** A stored policy. */
export interface BotPolicy {
  version: 1;
  default_threshold: number;
  signers: Record<string, KeyRefT>;
  rules: Rule[];
}

/** A stored controller link. */
export interface ControllerT {
  bot_id: string;
  label?: string;
  added_at: string;
}

/** A stored bot record, as every read returns it. */
export interface Bot {
  bot_id: string;
  name: string;
  description: string;
  status: "active" | "revoked";
  owner?: { name: string; url?: string; email?: string };
  keys: Key[];
  controllers: ControllerT[];
  policy: BotPolicy;
  endpoints: { type: string; url: string; description?: string }[];
  capabilities: string[];
  delegation?: { principal: string; scopes?: string[] };
  created_at: string;
  updated_at: string;
  revoked_at?: string;
  revocation_reason?: string;
  version: number;
}
