/** PostgreSQL bearer tokens store (see ../tokens.ts). */
import { splitTokenAndUser, type TokenRow, type TokenStore, tokenWithUserSql } from "../tokens.ts";
import { changes, rows, type Sql } from "./sql.ts";

const COLUMNS = "id, user_id, created_at, expires_at, last_used_at";

/** The tokens store over `sql`. */
export function pgTokens(sql: Sql): TokenStore {
  const one = async (where: string, arg: unknown) =>
    (await rows<TokenRow>(sql, `SELECT ${COLUMNS} FROM tokens WHERE ${where} = $1`, [arg]))[0];
  return {
    async insert(tokenHash, userId, createdAt, expiresAt) {
      const [row] = await rows<{ id: number }>(
        sql,
        `INSERT INTO tokens (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)
         RETURNING id`,
        [tokenHash, userId, createdAt, expiresAt],
      );
      return row.id;
    },
    async findWithUser(tokenHash) {
      const [row] = await rows<Record<string, unknown>>(sql, tokenWithUserSql("$1"), [
        tokenHash,
      ]);
      return row && splitTokenAndUser(row);
    },
    findById: (id) => one("id", id),
    async touch(id, at) {
      await changes(sql, "UPDATE tokens SET last_used_at = $1 WHERE id = $2", [at, id]);
    },
    listLiveOf: (userId, now) =>
      rows<TokenRow>(
        sql,
        `SELECT ${COLUMNS} FROM tokens WHERE user_id = $1 AND expires_at > $2 ORDER BY id`,
        [userId, now],
      ),
    delete: async (id) => await changes(sql, "DELETE FROM tokens WHERE id = $1", [id]) === 1,
    async deleteExpiredOf(userId, now) {
      await changes(sql, "DELETE FROM tokens WHERE user_id = $1 AND expires_at <= $2", [
        userId,
        now,
      ]);
    },
    deleteExpired: (now) => changes(sql, "DELETE FROM tokens WHERE expires_at <= $1", [now]),
  };
}
