/** The invites store: single-use signup codes. */
import type { Page, PageQuery } from "./pages.ts";

/** A stored invite with the username of whoever used it. */
export interface InviteRow {
  code: string;
  created_by: number | null;
  used_by: number | null;
  used_by_username: string | null;
  created_at: string;
  used_at: string | null;
  /** When it stops working; null: never (invites from before expiries). */
  expires_at: string | null;
}

/** A page of invites by creation time (keys `created_at` and the insertion order), of one state. */
export interface InvitePageQuery extends PageQuery {
  /** used; unused (and not expired at `now`); expired (unused, expired at `now`). */
  state?: "used" | "unused" | "expired";
  /** The time `state` is judged at (ISO 8601). */
  now: string;
}

/** Invite codes. */
export interface InviteStore {
  /** Stores a new unused invite, expiring at `expiresAt` (null: never), and returns it. */
  insert(code: string, createdBy: number | null, expiresAt?: string | null): Promise<InviteRow>;
  /** The invite with `code`, if any. */
  find(code: string): Promise<InviteRow | undefined>;
  /** The invite user `userId` signed up with, if any. */
  findUsedBy(userId: number): Promise<InviteRow | undefined>;
  /**
   * Marks an unused invite as used by `userId`; false when it was already used. Of concurrent
   * transactions consuming one code, exactly one gets true.
   */
  consume(code: string, userId: number): Promise<boolean>;
  /** Every invite, newest first. */
  list(): Promise<InviteRow[]>;
  /**
   * Deletes the invite `code` if it is unused (revoke); true when it did. Of a revoke and a
   * signup with that code at once, exactly one succeeds.
   */
  deleteUnused(code: string): Promise<boolean>;
  /** One page of invites. */
  page(q: InvitePageQuery): Promise<Page<InviteRow>>;
  /** How many invites are unused and not expired at `now`. */
  countUnused(now: string): Promise<number>;
}

/** The row of an invite just stored (both engines return it from `insert`). */
export function newInviteRow(
  code: string,
  createdBy: number | null,
  createdAt: string,
  expiresAt: string | null,
): InviteRow {
  return {
    code,
    created_by: createdBy,
    used_by: null,
    used_by_username: null,
    created_at: createdAt,
    used_at: null,
    expires_at: expiresAt,
  };
}
