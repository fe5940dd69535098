/** Data access for invite codes. */
import type { Database } from "./database.ts";

/** A stored invite with the username of whoever used it. */
export interface InviteRow {
  code: string;
  created_by: number | null;
  used_by: number | null;
  used_by_username: string | null;
  created_at: string;
  used_at: string | null;
}

/** Stores a new unused invite. */
export function insertInvite(db: Database, code: string, createdBy: number | null): InviteRow {
  const createdAt = new Date().toISOString();
  db.prepare("INSERT INTO invites (code, created_by, created_at) VALUES (?, ?, ?)")
    .run(code, createdBy, createdAt);
  return {
    code,
    created_by: createdBy,
    used_by: null,
    used_by_username: null,
    created_at: createdAt,
    used_at: null,
  };
}

/** Looks up an invite by code. */
export function findInvite(db: Database, code: string): InviteRow | undefined {
  return db.prepare(
    `SELECT i.*, u.username AS used_by_username FROM invites i
     LEFT JOIN users u ON u.id = i.used_by WHERE i.code = ?`,
  ).get(code) as InviteRow | undefined;
}

/** Marks an unused invite as used by `userId`; returns false when it was already used. */
export function consumeInvite(db: Database, code: string, userId: number): boolean {
  const res = db.prepare(
    "UPDATE invites SET used_by = ?, used_at = ? WHERE code = ? AND used_by IS NULL AND used_at IS NULL",
  ).run(userId, new Date().toISOString(), code);
  return Number(res.changes) === 1;
}

/** Lists all invites, newest first. */
export function listInvites(db: Database): InviteRow[] {
  return db.prepare(
    `SELECT i.*, u.username AS used_by_username FROM invites i
     LEFT JOIN users u ON u.id = i.used_by ORDER BY i.created_at DESC, i.rowid DESC`,
  ).all() as unknown as InviteRow[];
}
