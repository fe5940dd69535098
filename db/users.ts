/** Data access for users. */
import type { Database } from "./database.ts";

/** A stored account. */
export interface UserRow {
  id: number;
  username: string;
  public_key: string;
  created_at: string;
}

/** A user with the number of repositories they own, for admin listings. */
export interface UserSummaryRow extends UserRow {
  repo_count: number;
}

/** Looks up a user by username. */
export function findUserByName(db: Database, username: string): UserRow | undefined {
  return db.prepare("SELECT * FROM users WHERE username = ?").get(username) as UserRow | undefined;
}

/** Looks up a user by id. */
export function findUserById(db: Database, id: number): UserRow | undefined {
  return db.prepare("SELECT * FROM users WHERE id = ?").get(id) as UserRow | undefined;
}

/** Looks up a user by normalized `ssh-ed25519 <base64>` public key. */
export function findUserByKey(db: Database, publicKey: string): UserRow | undefined {
  return db.prepare("SELECT * FROM users WHERE public_key = ?").get(publicKey) as
    | UserRow
    | undefined;
}

/** Inserts a user and returns it. */
export function insertUser(db: Database, username: string, publicKey: string): UserRow {
  const createdAt = new Date().toISOString();
  const res = db.prepare(
    "INSERT INTO users (username, public_key, created_at) VALUES (?, ?, ?)",
  ).run(username, publicKey, createdAt);
  return {
    id: Number(res.lastInsertRowid),
    username,
    public_key: publicKey,
    created_at: createdAt,
  };
}

/** Lists all users, oldest first, with their repository counts. */
export function listUsers(db: Database): UserSummaryRow[] {
  return db.prepare(
    `SELECT u.*, (SELECT COUNT(*) FROM repos r WHERE r.owner_id = u.id) AS repo_count
     FROM users u ORDER BY u.id`,
  ).all() as unknown as UserSummaryRow[];
}
