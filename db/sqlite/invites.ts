/** Invites on SQLite. */
import type { Database } from "./database.ts";
import {
  type InvitePageQuery,
  type InviteRow,
  type InviteStore,
  newInviteRow,
} from "../invites.ts";
import { inviteListing } from "../listings.ts";
import type { Page } from "../pages.ts";
import { readPage } from "./pages.ts";
import type { Sync } from "./sync.ts";

const SELECT = `SELECT i.*, u.username AS used_by_username FROM invites i
  LEFT JOIN users u ON u.id = i.used_by`;

/** The invites store over one SQLite connection. */
export class SqliteInvites implements Sync<InviteStore> {
  /** The methods that write. */
  static readonly WRITES = ["insert", "consume", "deleteUnused"] as const;
  constructor(private readonly db: Database) {}

  insert(code: string, createdBy: number | null, expiresAt: string | null = null): InviteRow {
    const createdAt = new Date().toISOString();
    this.db.prepare(
      "INSERT INTO invites (code, created_by, created_at, expires_at) VALUES (?, ?, ?, ?)",
    ).run(code, createdBy, createdAt, expiresAt);
    return newInviteRow(code, createdBy, createdAt, expiresAt);
  }

  deleteUnused(code: string): boolean {
    const res = this.db.prepare("DELETE FROM invites WHERE code = ? AND used_at IS NULL").run(code);
    return Number(res.changes) === 1;
  }

  find(code: string): InviteRow | undefined {
    return this.db.prepare(`${SELECT} WHERE i.code = ?`).get(code) as InviteRow | undefined;
  }

  findUsedBy(userId: number): InviteRow | undefined {
    return this.db.prepare(`${SELECT} WHERE i.used_by = ?`).get(userId) as InviteRow | undefined;
  }

  consume(code: string, userId: number): boolean {
    const res = this.db.prepare(
      "UPDATE invites SET used_by = ?, used_at = ? WHERE code = ? AND used_by IS NULL AND used_at IS NULL",
    ).run(userId, new Date().toISOString(), code);
    return Number(res.changes) === 1;
  }

  list(): InviteRow[] {
    return this.db.prepare(`${SELECT} ORDER BY i.created_at DESC, i.rowid DESC`)
      .all() as unknown as InviteRow[];
  }

  page(q: InvitePageQuery): Page<InviteRow> {
    return readPage<InviteRow>(this.db, inviteListing("?", q, "i.rowid"), q);
  }

  countUnused(now: string): number {
    return Number(
      (this.db.prepare(
        "SELECT COUNT(*) AS n FROM invites WHERE used_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
      ).get(now) as { n: number }).n,
    );
  }
}
