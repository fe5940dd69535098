/** Users on SQLite. */
import type { Database } from "./database.ts";
import type { UserPageQuery, UserRow, UserStore, UserSummaryRow } from "../users.ts";
import { userListing } from "../listings.ts";
import type { Page } from "../pages.ts";
import { readPage } from "./pages.ts";
import type { Sync } from "./sync.ts";
import { DomainError } from "../../protocol/errors.ts";

/** The users store over one SQLite connection. */
export class SqliteUsers implements Sync<UserStore> {
  /** The methods that write (run in a transaction when called outside one). */
  static readonly WRITES = ["insert"] as const;
  constructor(private readonly db: Database) {}

  findByName(username: string): UserRow | undefined {
    return this.db.prepare("SELECT * FROM users WHERE username = ?").get(username) as
      | UserRow
      | undefined;
  }

  findById(id: number): UserRow | undefined {
    return this.db.prepare("SELECT * FROM users WHERE id = ?").get(id) as UserRow | undefined;
  }

  findByKey(publicKey: string): UserRow | undefined {
    return this.db.prepare("SELECT * FROM users WHERE public_key = ?").get(publicKey) as
      | UserRow
      | undefined;
  }

  insert(username: string, publicKey: string): UserRow {
    if (this.findByName(username)) {
      throw new DomainError("conflict", `username ${username} is already taken`);
    }
    if (this.findByKey(publicKey)) {
      throw new DomainError("conflict", "this public key is already registered to another account");
    }
    const createdAt = new Date().toISOString();
    const res = this.db.prepare(
      "INSERT INTO users (username, public_key, created_at) VALUES (?, ?, ?)",
    ).run(username, publicKey, createdAt);
    return {
      id: Number(res.lastInsertRowid),
      username,
      public_key: publicKey,
      created_at: createdAt,
    };
  }

  list(): UserSummaryRow[] {
    return this.db.prepare(
      `SELECT u.*, (SELECT COUNT(*) FROM repos r WHERE r.owner_id = u.id) AS repo_count
       FROM users u ORDER BY u.id`,
    ).all() as unknown as UserSummaryRow[];
  }

  page(q: UserPageQuery): Page<UserSummaryRow> {
    return readPage<UserSummaryRow>(this.db, userListing("?", q), q);
  }
}
