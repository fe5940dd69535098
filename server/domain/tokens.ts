/**
 * API tokens: issued by a login, stored only as their SHA-256, expiring, listed and revoked by
 * their public id. A revoked token's row is deleted; an expired one is refused and later purged.
 */
import type { Transaction } from "../../db/store.ts";
import type { TokenRow } from "../../db/tokens.ts";
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { randomHex, sha256Hex } from "../../protocol/secrets.ts";
import { DomainError } from "../../protocol/errors.ts";
import { validateUsername } from "../../protocol/names.ts";

/** Prefix of every bearer token. */
export const TOKEN_PREFIX = "SERVICE_";
/** The shape of a token as issued: the prefix and 64 lowercase hex characters. */
const TOKEN_PATTERN = /^SERVICE_[0-9a-f]{64}$/;
/** Lifetime of a token when the login does not ask for another, in days. */
export const DEFAULT_TOKEN_DAYS = 90;
/** The longest lifetime a login may ask for, in days. */
export const MAX_TOKEN_DAYS = 365;
/** `last_used_at` is written at most this often per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A token as the API shows it: never the secret nor its hash. */
export interface TokenView {
  id: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
}

/** Narrows a stored token to its public shape. */
export function tokenView(t: TokenRow): TokenView {
  return {
    id: t.id,
    created_at: t.created_at,
    last_used_at: t.last_used_at,
    expires_at: t.expires_at,
  };
}

/**
 * Validates a requested lifetime in days (`expires_in_days`): absent means `defaultDays`, else an
 * integer from 1 to `maxDays`.
 */
export function lifetimeDays(input: unknown, defaultDays: number, maxDays: number): number {
  if (input === undefined || input === null) return defaultDays;
  if (typeof input !== "number" || !Number.isInteger(input) || input < 1 || input > maxDays) {
    throw new DomainError(
      "invalid",
      `expires_in_days must be an integer from 1 to ${maxDays} (default ${defaultDays})`,
    );
  }
  return input;
}

/** Validates a login's requested lifetime in days (DEFAULT_TOKEN_DAYS, at most MAX_TOKEN_DAYS). */
export function tokenLifetimeDays(input: unknown): number {
  return lifetimeDays(input, DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS);
}

/** A token about to be stored: the raw secret (shown once), its hash and its times. */
export interface NewToken {
  token: string;
  hash: string;
  createdAt: string;
  expiresAt: string;
}

/** Mints a token valid for `days` from `nowMs`; nothing is stored yet (see `storeToken`). */
export async function mintToken(days: number, nowMs = Date.now()): Promise<NewToken> {
  const token = `${TOKEN_PREFIX}${randomHex(32)}`;
  return {
    token,
    hash: await sha256Hex(token),
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: new Date(nowMs + days * 86_400_000).toISOString(),
  };
}

/** Stores `t` for `userId` (inside the caller's transaction) and purges the user's expired ones. */
export async function storeToken(tx: Transaction, t: NewToken, userId: number): Promise<number> {
  await tx.tokens.deleteExpiredOf(userId, t.createdAt);
  return await tx.tokens.insert(t.hash, userId, t.createdAt, t.expiresAt);
}

/**
 * The live token behind a raw bearer token and its user; undefined when it is malformed, unknown
 * (revoked) or expired. Records the use (at most once a minute per token).
 */
export async function resolveToken(
  ctx: Signet,
  token: string,
  nowMs = Date.now(),
): Promise<{ user: UserRow; token: TokenRow } | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  // Looked up by its SHA-256: what the lookup's timing could reveal is about the hash, and a hash
  // does not lead back to a token, so no comparison of secrets happens here.
  const found = await ctx.store.tokens.findWithUser(await sha256Hex(token));
  const now = new Date(nowMs).toISOString();
  if (!found || found.token.expires_at <= now) return undefined;
  const { token: row, user } = found;
  if (
    row.last_used_at === null || Date.parse(row.last_used_at) + LAST_USED_RESOLUTION_MS <= nowMs
  ) {
    await ctx.store.tokens.touch(row.id, now);
    row.last_used_at = now;
  }
  return { user, token: row };
}

/** The live tokens of `user`, oldest first. */
export async function listTokens(
  ctx: Signet,
  user: UserRow,
  nowMs = Date.now(),
): Promise<TokenView[]> {
  return (await ctx.store.tokens.listLiveOf(user.id, new Date(nowMs).toISOString())).map(tokenView);
}

/** The live tokens of the user named `usernameInput` (admin use); not_found for no such user. */
export async function listTokensOfUser(
  ctx: Signet,
  usernameInput: unknown,
  nowMs = Date.now(),
): Promise<TokenView[]> {
  const username = validateUsername(usernameInput);
  const user = await ctx.store.users.findByName(username);
  if (!user) throw new DomainError("not_found", `user ${username} not found`);
  return await listTokens(ctx, user, nowMs);
}

/** Parses a token id from a path segment. */
function tokenId(input: unknown): number {
  if (typeof input !== "string" || !/^[1-9][0-9]{0,14}$/.test(input)) {
    throw new DomainError("invalid", "token id must be a positive integer");
  }
  return Number(input);
}

/**
 * Revokes token `idInput` when `owner` owns it; with no owner (admin use), any token. A token
 * of someone else is not_found, like one that does not exist, so ids reveal nothing.
 */
export async function revokeToken(
  ctx: Signet,
  idInput: unknown,
  owner?: UserRow,
): Promise<number> {
  const id = tokenId(idInput);
  const row = await ctx.store.tokens.findById(id);
  if (!row || (owner && row.user_id !== owner.id) || !(await ctx.store.tokens.delete(id))) {
    throw new DomainError("not_found", `token ${id} not found`);
  }
  return id;
}
