/** Bearer tokens on SQLite. */
import type { Database } from "./database.ts";
import { splitTokenAndUser, type TokenRow, type TokenStore, tokenWithUserSql } from "../tokens.ts";
import type { Sync } from "./sync.ts";
import type { UserRow } from "../users.ts";

const COLUMNS = "id, user_id, created_at, expires_at, last_used_at";

/** The tokens store over one SQLite connection. */
export class SqliteTokens implements Sync<TokenStore> {
  /** The methods that write. */
  static readonly WRITES = [
    "insert",
    "touch",
    "delete",
    "deleteExpiredOf",
    "deleteExpired",
  ] as const;
  constructor(private readonly db: Database) {}

  insert(tokenHash: string, userId: number, createdAt: string, expiresAt: string): number {
    const res = this.db.prepare(
      "INSERT INTO tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
    ).run(tokenHash, userId, createdAt, expiresAt);
    return Number(res.lastInsertRowid);
  }

  findWithUser(tokenHash: string): { token: TokenRow; user: UserRow } | undefined {
    const row = this.db.prepare(tokenWithUserSql("?")).get(tokenHash) as
      | Record<string, unknown>
      | undefined;
    return row && splitTokenAndUser(row);
  }

  findById(id: number): TokenRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`).get(id) as
      | TokenRow
      | undefined;
  }

  touch(id: number, at: string): void {
    this.db.prepare("UPDATE tokens SET last_used_at = ? WHERE id = ?").run(at, id);
  }

  listLiveOf(userId: number, now: string): TokenRow[] {
    return this.db.prepare(
      `SELECT ${COLUMNS} FROM tokens WHERE user_id = ? AND expires_at > ? ORDER BY id`,
    ).all(userId, now) as unknown as TokenRow[];
  }

  delete(id: number): boolean {
    return Number(this.db.prepare("DELETE FROM tokens WHERE id = ?").run(id).changes) === 1;
  }

  deleteExpiredOf(userId: number, now: string): void {
    this.db.prepare("DELETE FROM tokens WHERE user_id = ? AND expires_at <= ?").run(userId, now);
  }

  deleteExpired(now: string): number {
    return Number(this.db.prepare("DELETE FROM tokens WHERE expires_at <= ?").run(now).changes);
  }
}
