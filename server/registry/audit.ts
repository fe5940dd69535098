/**
 * The hash-chained audit log. Every accepted mutation appends one entry; an entry's `hash` is the
 * SHA-256 (hex) of the JCS of the entry without `hash`, and `prev_hash` is the previous entry's
 * hash (64 zeros for the first), so altering or dropping any entry breaks every later hash.
 */
import { createHash } from "node:crypto";
import type { Transaction } from "../../db/store.ts";
import type { LogRow } from "../../db/registry_log.ts";
import { canonicalJson } from "../../protocol/registry/jcs.ts";
import type { SignerRefT } from "../../protocol/registry/bot.ts";
import type { LogEntryT, ProofT, SignerSetT } from "../../protocol/registry/schemas.ts";

/** prev_hash of the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** The hash an entry must carry. */
export function entryHash(entry: Omit<LogEntryT, "hash">): string {
  const { hash: _ignored, ...rest } = entry as LogEntryT;
  return createHash("sha256").update(canonicalJson(rest)).digest("hex");
}

/** What a caller knows about a mutation before it is logged. */
export interface LogDraft {
  botId: string;
  operation: string;
  method: string;
  path: string;
  now: string;
  nowMs: number;
  /** The canonical payload text (JCS of the body minus proofs). */
  body: string;
  proof?: ProofT;
  proofSet?: SignerSetT;
  signers: SignerRefT[];
  version: number;
}

/**
 * The entry for `draft` that follows `head` (the log's head, read after `tx.log.lock()`), and the
 * row that appends it.
 */
export function nextEntry(
  head: { seq: number; hash: string } | undefined,
  draft: LogDraft,
): { entry: LogEntryT; row: LogRow } {
  const partial: Omit<LogEntryT, "hash"> = {
    seq: (head?.seq ?? 0) + 1,
    bot_id: draft.botId,
    operation: draft.operation,
    method: draft.method,
    path: draft.path,
    created_at: draft.now,
    body: draft.body,
    ...(draft.proof ? { proof: draft.proof } : {}),
    ...(draft.proofSet ? { proof_set: draft.proofSet } : {}),
    signers: draft.signers,
    version: draft.version,
    prev_hash: head?.hash ?? GENESIS_HASH,
  };
  const entry: LogEntryT = { ...partial, hash: entryHash(partial) };
  return {
    entry,
    row: {
      seq: entry.seq,
      botId: entry.bot_id,
      operation: entry.operation,
      entry: JSON.stringify(entry),
      hash: entry.hash,
      createdMs: draft.nowMs,
    },
  };
}

/**
 * Appends the entry for `draft` to the log (inside the caller's transaction, after its
 * `tx.log.lock()`) and returns it.
 */
export async function appendEntry(tx: Transaction, draft: LogDraft): Promise<LogEntryT> {
  const { entry, row } = nextEntry(await tx.log.head(), draft);
  await tx.log.append(row);
  return entry;
}

/** Checks that `entries` (a prefix of the whole log, in order) chain correctly; returns the first problem. */
export function verifyChain(entries: LogEntryT[]): string | null {
  let prev = GENESIS_HASH;
  let seq = 0;
  for (const e of entries) {
    if (e.seq !== seq + 1) return `entry ${e.seq}: expected seq ${seq + 1}`;
    if (e.prev_hash !== prev) return `entry ${e.seq}: prev_hash does not match entry ${seq}`;
    if (entryHash(e) !== e.hash) return `entry ${e.seq}: hash does not match its content`;
    prev = e.hash;
    seq = e.seq;
  }
  return null;
}
