/** Shapes of the registry API's JSON replies, as far as the browser reads them. */

/** A bot's or key's lifecycle state. */
export type Status = "active" | "revoked";

/** An Ed25519 key of a bot. */
export interface Key {
  key_id: string;
  algorithm: string;
  public_key: string;
  label?: string;
  status?: Status;
  created_at?: string;
  revoked_at?: string;
  revocation_reason?: string;
  replaced_by?: string;
  origin?: {
    operation: string;
    seq?: number;
    rotated_from?: string;
    approved_by?: { key: string }[];
  };
}

/** A key of this bot (no bot_id) or of a controller. */
export interface KeyRef {
  key_id: string;
  bot_id?: string;
}

/** One m-of-n rule. */
export interface PolicyRule {
  operation: string;
  threshold: number;
  signers: string[];
  description?: string;
}

/** The operation policy of a bot. */
export interface Policy {
  version?: number;
  default_threshold: number;
  signers: Record<string, KeyRef>;
  rules: PolicyRule[];
}

/** A bot identity record. */
export interface Bot {
  bot_id: string;
  name?: string;
  description?: string;
  status?: Status;
  owner?: { name: string; url?: string; email?: string } | null;
  keys: Key[];
  controllers?: { bot_id: string; label?: string; added_at?: string }[];
  policy?: Policy;
  endpoints?: { type: string; url: string; description?: string }[];
  capabilities?: string[];
  delegation?: { principal: string; scopes?: string[] } | null;
  created_at?: string;
  updated_at?: string;
  revoked_at?: string;
  revocation_reason?: string;
  version?: number;
}

/** GET /v1/search */
export interface SearchResponse {
  results: Bot[];
  next_cursor: string | null;
}

/** GET /v1/bots/{id}/controlled */
export interface ControlledBots {
  bots: { bot_id: string; name?: string; status: Status; label?: string }[];
  next_cursor: string | null;
}

/** GET /v1/search/counts */
export type { SearchCounts } from "../../protocol/registry/search_counts.ts";

/** GET /v1/stats */
export interface Stats {
  bots_total: number;
  bots_by_status: Record<string, number>;
  keys_total: number;
  keys_by_status: Record<string, number>;
  attestations_total: number;
  controllers_total?: number;
  operations_24h?: number;
  log_entries?: number;
  uptime_seconds?: number;
  generated_at?: string;
  log_head?: { seq: number; hash: string };
}

/** A signed statement by one bot about another. */
export interface Attestation {
  attestation_id?: string;
  issuer: string;
  subject: string;
  claim: string;
  evidence?: { type: string; value: string }[];
  published_at?: string;
  signature?: { key_id: string; algorithm: string; value: string };
}

/** GET /v1/bots/{id}/attestations */
export interface AttestationList {
  attestations: Attestation[];
  next_cursor?: string | null;
}

/** One entry of the hash-chained audit log. */
export interface LogEntry {
  seq: number;
  bot_id: string;
  operation: string;
  method?: string;
  path?: string;
  created_at: string;
  signers?: { key: string }[];
  version?: number;
  prev_hash?: string;
  hash: string;
}

/** GET /v1/bots/{id}/log */
export interface LogPage {
  entries: LogEntry[];
  next_after: number | null;
  /** Newest first (`order=desc`): the `before` of the next, older page. */
  next_before?: number | null;
}
