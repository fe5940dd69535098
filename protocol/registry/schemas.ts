/**
 * The registry's schemas: one zod definition per schema of the spec, used both to validate
 * requests and to generate the OpenAPI 3.1 document. Every field is documented in docs/registry.md.
 */
import { z } from "@hono/zod-openapi";
import { decodeBase64Url } from "./base64url.ts";
import { BOT_ID_PATTERN } from "./bot_id.ts";

export { BOT_ID_PATTERN };
/** Key identifiers: letters, digits, `.`, `_`, `-`; 1–64 chars; starts and ends alphanumeric. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;
/**
 * The most keys a bot record holds, revoked ones included (they stay in the record for ever and
 * an update lists them all). Create refuses more in the body; add-key and rotate refuse a key
 * beyond it (bots.ts, `checkStoredRecord`).
 */
export const MAX_KEYS = 32;
/** Capability names: lowercase, digits and `.`, `_`, `:`, `/`, `-`; 1–64 chars. */
export const CAPABILITY_PATTERN = /^[a-z0-9][a-z0-9._:/-]{0,63}$/;
/** Names of policy signers. */
export const SIGNER_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;

/** The operations a policy rule can govern (canonical names). */
export const OPERATIONS = ["update", "add_key", "revoke_key", "rotate_key", "revoke_bot"] as const;
/** A canonical operation name. */
export type Operation = typeof OPERATIONS[number];
/** Accepted alternative spellings of operation names, normalized on input. */
export const OPERATION_ALIASES: Record<string, Operation> = {
  update_bot: "update",
  remove_key: "revoke_key",
  rotate: "rotate_key",
  revoke: "revoke_bot",
};

const timestamp = z.string().openapi({
  description: "ISO 8601 UTC timestamp with milliseconds, e.g. 2025-01-01T00:00:00.000Z",
  example: "2025-01-01T00:00:00.000Z",
});
const serverManaged = (schema: z.ZodType, what: string) =>
  schema.optional().openapi({ description: `${what} Set by the server; ignored in requests.` });

const botId = z.string().regex(
  BOT_ID_PATTERN,
  "must be 1-64 of a-z 0-9 . _ - starting and ending alphanumeric",
)
  .openapi({ example: "acme-deploy-bot" });
const keyId = z.string().regex(
  KEY_ID_PATTERN,
  "must be 1-64 of A-Z a-z 0-9 . _ - starting and ending alphanumeric",
)
  .openapi({ example: "k1" });
const ed25519PublicKey = z.string().refine(
  (s) => decodeBase64Url(s)?.length === 32,
  "must be the 32-byte Ed25519 public key in unpadded base64url (43 characters)",
).openapi({ description: "unpadded base64url of the 32 raw public key bytes" });

/** Lifecycle state of a bot: `active` until revoked; `revoked` is final. */
export const BotStatus = z.enum(["active", "revoked"]).openapi("BotStatus");
/** Lifecycle state of a key: `active` until revoked (by remove, rotate or bot revocation). */
export const KeyStatus = z.enum(["active", "revoked"]).openapi({ description: "key state" });

/** A fully qualified signer `<bot_id>#<key_id>`. */
export const SignerRef = z.strictObject({
  key: z.string().openapi({ example: "acme-deploy-bot#k1", description: "`<bot_id>#<key_id>`" }),
}).openapi("SignerRef");

/** A reference to a key of this bot (no bot_id) or of one of its controllers. */
export const KeyRef = z.strictObject({
  key_id: keyId,
  bot_id: botId.optional().openapi({
    description: "the controller bot owning the key; omit for this bot's own key",
  }),
}).openapi("KeyRef");

/** How a key entered the record (server-managed). */
export const KeyOrigin = z.strictObject({
  operation: z.enum(["create_bot", "add_key", "rotate_key"]),
  seq: z.number().int().optional().openapi({ description: "audit log sequence number" }),
  log_hash: z.string().optional().openapi({ description: "hash of that audit log entry" }),
  rotated_from: keyId.optional().openapi({ description: "the key this one replaced" }),
  approved_by: z.array(SignerRef).optional().openapi({ description: "signers that approved it" }),
}).openapi("KeyOrigin");

/** An Ed25519 public key of a bot. */
export const PublicKey = z.strictObject({
  key_id: keyId,
  algorithm: z.literal("Ed25519"),
  public_key: ed25519PublicKey,
  label: z.string().min(1).max(100).openapi({
    description: "human-readable name",
    example: "ci-runner",
  }),
  status: serverManaged(KeyStatus, "Key state."),
  created_at: serverManaged(timestamp, "When the key was added."),
  revoked_at: serverManaged(timestamp, "When the key was revoked."),
  revocation_reason: serverManaged(z.string(), "Reason given when the key was revoked."),
  replaced_by: serverManaged(keyId, "The key that replaced this one in a rotation."),
  origin: serverManaged(KeyOrigin, "How the key entered the record."),
}).openapi("PublicKey");

/** Who operates the bot. */
export const Owner = z.strictObject({
  name: z.string().min(1).max(100),
  url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  email: z.email().max(254).optional(),
}).openapi("Owner");

/** A bot whose active keys may sign for this bot (one level; its own controllers are not consulted). */
export const Controller = z.strictObject({
  bot_id: botId,
  label: z.string().max(100).optional(),
  added_at: serverManaged(timestamp, "When the controller was added."),
}).openapi("Controller");

/** One m-of-n rule over named signers for one operation. */
export const PolicyRule = z.strictObject({
  operation: z.enum([...OPERATIONS, ...Object.keys(OPERATION_ALIASES)] as [string, ...string[]])
    .openapi({ description: "operation governed; aliases are normalized to canonical names" }),
  threshold: z.number().int().min(1).max(64).openapi({ description: "m: signers needed" }),
  signers: z.array(z.string().regex(SIGNER_NAME_PATTERN)).min(1).max(64).openapi({
    description: "n: names from `policy.signers` that may sign",
  }),
  description: z.string({
    error: (issue) =>
      issue.input === undefined ? 'is required (send "" for none)' : "must be a string",
  }).max(200).openapi({ description: "what the rule is for; required, may be empty" }),
}).openapi("PolicyRule");

/** The bot's operation policy. */
export const Policy = z.strictObject({
  version: z.literal(1).openapi({ description: "policy language version (1)" }),
  default_threshold: z.number().int().min(1).max(64).openapi({
    description: "signatures needed, from any active key of the bot or its controllers, for " +
      "operations without a rule (1 = the registry default)",
  }),
  signers: z.record(z.string().regex(SIGNER_NAME_PATTERN), KeyRef).openapi({
    description: "named signers: name -> key of this bot or of a controller",
  }),
  rules: z.array(PolicyRule).max(16),
}).openapi("Policy");

/** A network endpoint where the bot can be reached. */
export const Endpoint = z.strictObject({
  type: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,31}$/).openapi({ example: "webhook" }),
  url: z.url({ protocol: /^(https?|wss?)$/ }).max(2048),
  description: z.string().max(200).optional(),
}).openapi("Endpoint");

/** Authority delegated to the bot by a principal (person or organisation). */
export const Delegation = z.strictObject({
  principal: z.string().min(1).max(200).openapi({ example: "https://acme.example/people/alice" }),
  scopes: z.array(z.string().min(1).max(64)).max(32).optional(),
}).openapi("Delegation");

/** One signature of a detached-JWS proof. */
const proofFields = {
  algorithm: z.literal("Ed25519"),
  key_id: z.string().min(1).max(130).openapi({
    description: "`<key_id>` of the target bot, or `<bot_id>#<key_id>` (e.g. a controller's key)",
  }),
  created: timestamp,
  jws: z.string().min(1).max(4096).openapi({ description: "`<header>..<signature>` (RFC 7797)" }),
  nonce: z.string().max(200).optional().openapi({
    description: "copy of the header's nonce (optional; must match when present)",
  }),
};
/** A single proof. */
export const Proof = z.strictObject(proofFields).openapi("Proof");
/** One entry of a multi-signature proof set. */
export const ProofItem = z.strictObject(proofFields).openapi("ProofItem");
/** Several signatures over the same canonical payload. */
export const SignerSet = z.strictObject({
  payload_sha256: z.string().openapi({
    description: "unpadded base64url SHA-256 of the canonical payload every item signs",
  }),
  proofs: z.array(ProofItem).min(1).max(16),
}).openapi("SignerSet");

const proofProps = {
  proof: Proof.optional(),
  proof_set: SignerSet.optional(),
};

/** A bot identity record (request body of create and update; response of reads and writes). */
export const BotRecord = z.strictObject({
  bot_id: botId,
  name: z.string().max(100).optional(),
  description: z.string().max(1000).optional(),
  status: serverManaged(BotStatus, "Bot state."),
  owner: Owner.nullable().optional(),
  keys: z.array(PublicKey).min(1).max(MAX_KEYS),
  controllers: z.array(Controller).max(8).optional(),
  policy: Policy.optional(),
  endpoints: z.array(Endpoint).max(16).optional(),
  capabilities: z.array(z.string().regex(CAPABILITY_PATTERN)).max(32).optional(),
  delegation: Delegation.nullable().optional(),
  created_at: serverManaged(timestamp, "Creation time."),
  updated_at: serverManaged(timestamp, "Last change."),
  revoked_at: serverManaged(timestamp, "Revocation time."),
  revocation_reason: serverManaged(z.string(), "Reason given at revocation."),
  version: serverManaged(z.number().int(), "Record version, 1 at creation, +1 per change."),
  ...proofProps,
}).openapi("BotRecord");

/** Body of add_key. */
export const AddKeyRequest = z.strictObject({ key: PublicKey, ...proofProps }).openapi(
  "AddKeyRequest",
);
/** Body of remove_key. */
export const RemoveKeyRequest = z.strictObject({
  reason: z.string().max(200).optional(),
  ...proofProps,
}).openapi("RemoveKeyRequest");
/** Body of revoke_bot. */
export const RevokeBotRequest = z.strictObject({
  reason: z.string().max(200).optional(),
  ...proofProps,
}).openapi("RevokeBotRequest");
/** Body of rotate_key. */
export const RotateKeyRequest = z.strictObject({
  old_key_id: keyId,
  new_key: PublicKey,
  ...proofProps,
}).openapi("RotateKeyRequest");

/** Supporting material for an attestation. */
export const Evidence = z.strictObject({
  type: z.string().min(1).max(64).openapi({ example: "url" }),
  value: z.string().min(1).max(2048),
}).openapi("Evidence");

/** An issuer's signature over an attestation. */
export const SignatureRef = z.strictObject({
  key_id: keyId.openapi({ description: "the issuer bot's key" }),
  algorithm: z.literal("Ed25519"),
  value: z.string().openapi({ description: "unpadded base64url of the 64-byte signature" }),
}).openapi("SignatureRef");

/** A signed statement by one bot (issuer) about another (subject). */
export const Attestation = z.strictObject({
  attestation_id: z.string().optional().openapi({
    description: "SHA-256 (hex) of the signed payload. Set by the server; rejected in requests.",
  }),
  issuer: botId,
  subject: botId,
  claim: z.string().min(1).max(500).openapi({ example: "code-reviewed-by:acme-security" }),
  evidence: z.array(Evidence).max(16).optional(),
  published_at: timestamp.optional().openapi({
    description: "When the registry accepted it. Set by the server; rejected in requests.",
  }),
  signature: SignatureRef,
}).openapi("Attestation");

/** Body of publish_attestation. */
export const PublishAttestationRequest = z.strictObject({
  attestation: Attestation,
  format: z.literal("jcs-ed25519").openapi({
    description: "signature format: Ed25519 over the JCS of the attestation minus signature",
  }),
}).openapi("PublishAttestationRequest");

/** Every error body. */
export const ErrorResponse = z.strictObject({
  error: z.string().openapi({ example: "bot acme-deploy-bot not found" }),
}).openapi("ErrorResponse");
/** Liveness. */
export const HealthResponse = z.strictObject({ status: z.enum(["ok", "unavailable"]) }).openapi(
  "HealthResponse",
);
/** A fresh single-use nonce. */
export const NonceResponse = z.strictObject({
  nonce: z.string().openapi({ description: "valid for 5 minutes, usable once" }),
}).openapi("NonceResponse");

/** Service metadata. */
export const RootResponse = z.strictObject({
  name: z.string(),
  version: z.string(),
  api_version: z.literal("v1"),
  description: z.string(),
  documentation_url: z.string(),
  openapi_url: z.string(),
  server_time: timestamp,
  links: z.record(z.string(), z.string()).openapi({ description: "route templates by name" }),
}).openapi("RootResponse");

/** One page of search results. */
export const SearchResponse = z.strictObject({
  results: z.array(BotRecord),
  next_cursor: z.string().nullable().openapi({ description: "pass as `cursor` for the next page" }),
}).openapi("SearchResponse");

const countsBy = (keys: readonly string[]) =>
  z.strictObject(Object.fromEntries(keys.map((k) => [k, z.number().int()])));

/** How many bots a search matches, and its facets (GET /v1/search/counts). */
export const SearchCountsResponse = z.strictObject({
  total: z.number().int().openapi({
    description: "bots matching; when `total_exact` is false, at least this many (`count_limit`)",
  }),
  total_exact: z.boolean(),
  by_status: countsBy(["active", "revoked"]).openapi({
    description: "matching bots by status (with the status filter left out)",
  }),
  capabilities: z.array(z.strictObject({ capability: z.string(), count: z.number().int() }))
    .openapi({
      description:
        "the most common capabilities of the matching bots (with the capability filter left out), most common first",
    }),
  facets_exact: z.boolean().openapi({
    description: "false when the facets were counted over the first `count_limit` matches only",
  }),
  count_limit: z.number().int(),
}).openapi("SearchCountsResponse");

/** Registry counts and metrics. */
export const RegistryStatsResponse = z.strictObject({
  bots_total: z.number().int(),
  bots_by_status: countsBy(["active", "revoked"]),
  keys_total: z.number().int(),
  keys_by_status: countsBy(["active", "revoked"]),
  attestations_total: z.number().int(),
  controllers_total: z.number().int().openapi({ description: "controller links" }),
  operations_24h: z.number().int().openapi({ description: "accepted mutations, last 24 h" }),
  log_entries: z.number().int(),
  uptime_seconds: z.number().int(),
  generated_at: timestamp,
  log_head: z.strictObject({ seq: z.number().int(), hash: z.string() }).optional().openapi({
    description: "last audit log entry; absent while the log is empty",
  }),
}).openapi("RegistryStatsResponse");

/** One entry of the hash-chained audit log. */
export const LogEntry = z.strictObject({
  seq: z.number().int(),
  bot_id: z.string(),
  operation: z.string(),
  method: z.string(),
  path: z.string(),
  created_at: timestamp,
  body: z.string().openapi({ description: "the canonical payload C (JCS text) that was signed" }),
  proof: Proof.optional(),
  proof_set: SignerSet.optional(),
  signers: z.array(SignerRef),
  version: z.number().int().openapi({ description: "record version after the operation" }),
  prev_hash: z.string(),
  hash: z.string(),
}).openapi("LogEntry");

/** A page of audit log entries. */
export const LogResponse = z.strictObject({
  entries: z.array(LogEntry),
  next_after: z.number().int().nullable().openapi({
    description:
      "oldest first: pass as `after` for the next page (null at the end; newest first: always null)",
  }),
  next_before: z.number().int().nullable().optional().openapi({
    description: "newest first (`order=desc`) only: pass as `before` for the next, older page",
  }),
}).openapi("LogResponse");

/** A page of attestations. */
export const AttestationListResponse = z.strictObject({
  attestations: z.array(Attestation),
  next_cursor: z.string().nullable(),
}).openapi("AttestationListResponse");

/** One page of the bots a bot controls (GET /v1/bots/{bot_id}/controlled). */
export const ControlledBotsResponse = z.strictObject({
  bots: z.array(z.strictObject({
    bot_id: z.string(),
    name: z.string().optional(),
    status: BotStatus,
    label: z.string().optional().openapi({
      description: "the label the bot gives this controller",
    }),
  })),
  next_cursor: z.string().nullable().openapi({ description: "pass as `cursor` for the next page" }),
}).openapi("ControlledBotsResponse");

/** A proof as received. */
export type ProofT = z.infer<typeof Proof>;
/** A proof set as received. */
export type SignerSetT = z.infer<typeof SignerSet>;
/** An attestation. */
export type AttestationT = z.infer<typeof Attestation>;
/** An audit log entry. */
export type LogEntryT = z.infer<typeof LogEntry>;
