/** Accounts: invites, signup and the nonce-signing login that issues tokens (./tokens.ts). */
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { randomHex } from "../../protocol/secrets.ts";
import { parsePublicKeyLine } from "../../protocol/ssh/sshkey.ts";
import { SshSigError, verifySshSig } from "../../protocol/ssh/sshsig.ts";
import { DomainError } from "../../protocol/errors.ts";
import { validateUsername } from "../../protocol/names.ts";
import { lifetimeDays, mintToken, storeToken, tokenLifetimeDays } from "./tokens.ts";

/** How long a login challenge stays valid. */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
/** The SSHSIG namespace logins must be signed under. */
export const SSHSIG_NAMESPACE = "service";

/** A user as API responses show it. */
export interface PublicUser {
  id: number;
  username: string;
}

/** Narrows a stored user to its public shape. */
export function publicUser(u: UserRow): PublicUser {
  return { id: u.id, username: u.username };
}

/** Days an invite works when its minting names no other lifetime, and the most it may name. */
export const DEFAULT_INVITE_DAYS = 7;
export const MAX_INVITE_DAYS = 365;

/**
 * Validates an invite's requested lifetime in days: absent means DEFAULT_INVITE_DAYS, else an
 * integer from 1 to MAX_INVITE_DAYS.
 */
export function inviteLifetimeDays(input: unknown): number {
  return lifetimeDays(input, DEFAULT_INVITE_DAYS, MAX_INVITE_DAYS);
}

/** Mints a single-use invite code (`inv_` + 32 hex) that works for `days` days. */
export async function mintInvite(
  ctx: Signet,
  createdBy: number | null = null,
  days = DEFAULT_INVITE_DAYS,
): Promise<{ code: string; expires_at: string }> {
  const code = `inv_${randomHex(16)}`;
  const expiresAt = new Date(Date.now() + days * 86_400_000).toISOString();
  await ctx.store.invites.insert(code, createdBy, expiresAt);
  return { code, expires_at: expiresAt };
}

/**
 * Revokes the unused invite `codeInput`: it no longer signs anyone up. A used invite is a
 * conflict (the account stays), an unknown one not_found.
 */
export async function revokeInvite(ctx: Signet, codeInput: string): Promise<string> {
  if (!/^inv_[0-9a-f]{32}$/.test(codeInput)) {
    throw new DomainError("not_found", "invite code not found");
  }
  if (await ctx.store.invites.deleteUnused(codeInput)) return codeInput;
  if (await ctx.store.invites.find(codeInput)) {
    throw new DomainError("conflict", "invite code has already been used: it cannot be revoked");
  }
  throw new DomainError("not_found", "invite code not found");
}

/** Input of a signup, as received from any transport. */
export interface SignupInput {
  username: unknown;
  public_key: unknown;
  invite_code: unknown;
}

/**
 * Creates an account: takes a `signup_ip` token for the client address `from` (every transport's
 * attempt counts against the same bucket, so invite codes cannot be guessed faster over one of
 * them), validates username, key and invite in the spec's order, then inserts the user and
 * consumes the invite in one transaction. Nothing changes when anything fails.
 */
export async function signup(ctx: Signet, input: SignupInput, from: string): Promise<UserRow> {
  await ctx.limiter.take("signup_ip", from);
  const username = validateUsername(input.username);
  if (typeof input.public_key !== "string") {
    throw new DomainError("invalid", "public_key must be a string");
  }
  let keyLine: string;
  try {
    keyLine = parsePublicKeyLine(input.public_key).line;
  } catch (err) {
    throw new DomainError("invalid", (err as Error).message);
  }
  if (typeof input.invite_code !== "string" || !input.invite_code) {
    throw new DomainError("invalid", "invite_code is required");
  }
  const code = input.invite_code;
  return await ctx.store.transaction(async (tx) => {
    const invite = await tx.invites.find(code);
    if (!invite) throw new DomainError("invalid", "invite code not found");
    if (invite.used_at !== null) {
      throw new DomainError("conflict", "invite code has already been used");
    }
    if (invite.expires_at !== null && invite.expires_at <= new Date().toISOString()) {
      throw new DomainError("invalid", "invite code has expired");
    }
    if (await tx.users.findByName(username)) {
      throw new DomainError("conflict", `username ${username} is already taken`);
    }
    if (await tx.users.findByKey(keyLine)) {
      throw new DomainError("conflict", "this public key is already registered to another account");
    }
    const user = await tx.users.insert(username, keyLine);
    if (!(await tx.invites.consume(code, user.id))) {
      throw new DomainError("conflict", "invite code has already been used");
    }
    return user;
  });
}

/**
 * Validates `input` as a username that signup would accept right now (format, not taken) and
 * returns it; throws DomainError("invalid" | "conflict") otherwise. Signup checks again.
 */
export async function checkUsernameAvailable(ctx: Signet, input: unknown): Promise<string> {
  const username = validateUsername(input);
  if (await ctx.store.users.findByName(username)) {
    throw new DomainError("conflict", `username ${username} is already taken`);
  }
  return username;
}

/**
 * Takes a `login_user` token for `username` asked from the client address `from`. The bucket is
 * per (username, address): counted per username alone, anyone could lock a user out by asking
 * for challenges in their name, and a signature cannot be guessed, so there is nothing to slow
 * down across addresses (each address is limited by `login_ip` besides).
 */
async function takeLoginToken(ctx: Signet, username: string, from: string): Promise<void> {
  await ctx.limiter.take("login_user", `${username}\u0000${from}`);
}

/**
 * Issues a login nonce for `username` asked from `from` (rate limited per username and address)
 * and removes that user's expired challenges. An unknown username gets an indistinguishable
 * nonce that is never stored (no user enumeration).
 */
export async function issueChallenge(
  ctx: Signet,
  usernameInput: unknown,
  from: string,
  nowMs = Date.now(),
): Promise<string> {
  const username = validateUsername(usernameInput);
  await takeLoginToken(ctx, username, from);
  const nonce = randomHex(32);
  if (!(await ctx.store.users.findByName(username))) return nonce;
  await ctx.store.transaction(async (tx) => {
    await tx.challenges.deleteExpiredOf(username, nowMs - CHALLENGE_LIFETIME_MS);
    await tx.challenges.insert(username, nonce, nowMs);
  });
  return nonce;
}

/** Input of a login verification. */
export interface VerifyInput {
  username: unknown;
  nonce: unknown;
  signature: unknown;
  /** The token's lifetime in days; DEFAULT_TOKEN_DAYS when absent. */
  expires_in_days?: unknown;
}

/**
 * Verifies a signed challenge from `from` in the spec's order (find challenge, check age, load
 * key, verify signature, delete challenge, issue token) and returns the raw token, shown only
 * this once, with its expiry.
 */
export async function verifyLogin(
  ctx: Signet,
  input: VerifyInput,
  from: string,
  nowMs = Date.now(),
): Promise<{ token: string; expiresAt: string; user: UserRow }> {
  const username = validateUsername(input.username);
  await takeLoginToken(ctx, username, from);
  if (typeof input.nonce !== "string" || !/^[0-9a-f]{64}$/.test(input.nonce)) {
    throw new DomainError("invalid", "nonce must be 64 lowercase hex characters");
  }
  if (typeof input.signature !== "string") {
    throw new DomainError("invalid", "signature must be a PEM-armored SSH signature string");
  }
  const days = tokenLifetimeDays(input.expires_in_days);
  const challenge = await ctx.store.challenges.find(username, input.nonce);
  if (!challenge) throw new DomainError("unauthorized", "unknown or already used challenge");
  if (nowMs - challenge.created_ms >= CHALLENGE_LIFETIME_MS || nowMs < challenge.created_ms) {
    throw new DomainError("unauthorized", "challenge has expired; request a new one");
  }
  const user = await ctx.store.users.findByName(username);
  if (!user) throw new DomainError("unauthorized", "unknown or already used challenge");
  const key = parsePublicKeyLine(user.public_key);
  try {
    await verifySshSig(
      input.signature,
      new TextEncoder().encode(input.nonce),
      SSHSIG_NAMESPACE,
      key.blob,
    );
  } catch (err) {
    if (err instanceof SshSigError) throw new DomainError("unauthorized", err.message);
    throw err;
  }
  const minted = await mintToken(days, nowMs);
  await ctx.store.transaction(async (tx) => {
    // The await above lets a concurrent verify of the same challenge run first: the delete
    // decides which one wins, so a challenge yields at most one token.
    if (!(await tx.challenges.delete(challenge.id))) {
      throw new DomainError("unauthorized", "unknown or already used challenge");
    }
    await storeToken(tx, minted, user.id);
  });
  return { token: minted.token, expiresAt: minted.expiresAt, user };
}

/** Returns the user registered with this `ssh-ed25519` key blob line, if any. */
export function findUserBySshKey(ctx: Signet, keyLine: string): Promise<UserRow | undefined> {
  return ctx.store.users.findByKey(keyLine);
}
