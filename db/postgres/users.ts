/** PostgreSQL users store (see ../users.ts). */
import { DomainError } from "../../protocol/errors.ts";
import type { UserRow, UserStore, UserSummaryRow } from "../users.ts";
import { userListing } from "../listings.ts";
import { readPage } from "./pages.ts";
import { rows, type Sql } from "./sql.ts";

const COLUMNS = "id, username, public_key, created_at";

/** The users store over `sql`. */
export function pgUsers(sql: Sql): UserStore {
  const one = async (where: string, arg: unknown) =>
    (await rows<UserRow>(sql, `SELECT ${COLUMNS} FROM users WHERE ${where} = $1`, [arg]))[0];
  return {
    findByName: (username) => one("username", username),
    findById: (id) => one("id", id),
    findByKey: (publicKey) => one("public_key", publicKey),
    async insert(username, publicKey) {
      const createdAt = new Date().toISOString();
      // NOT EXISTS spends no id on a taken name or key (ids match SQLite's); ON CONFLICT covers
      // a concurrent insert and keeps the transaction usable to say which one clashed.
      const [row] = await rows<{ id: number }>(
        sql,
        `INSERT INTO users (username, public_key, created_at) SELECT $1, $2, $3
         WHERE NOT EXISTS (SELECT 1 FROM users WHERE username = $1 OR public_key = $2)
         ON CONFLICT DO NOTHING RETURNING id`,
        [username, publicKey, createdAt],
      );
      if (!row) {
        if (await one("username", username)) {
          throw new DomainError("conflict", `username ${username} is already taken`);
        }
        throw new DomainError(
          "conflict",
          "this public key is already registered to another account",
        );
      }
      return { id: row.id, username, public_key: publicKey, created_at: createdAt };
    },
    list: () =>
      rows<UserSummaryRow>(
        sql,
        `SELECT u.id, u.username, u.public_key, u.created_at,
           (SELECT COUNT(*) FROM repos r WHERE r.owner_id = u.id) AS repo_count
         FROM users u ORDER BY u.id`,
      ),
    page: (q) => readPage(sql, userListing("$", q, ' COLLATE "C"'), q),
  };
}
