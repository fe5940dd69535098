/** PostgreSQL invites store (see ../invites.ts). */
import { type InviteRow, type InviteStore, newInviteRow } from "../invites.ts";
import { inviteListing } from "../listings.ts";
import { readPage } from "./pages.ts";
import { changes, rows, type Sql } from "./sql.ts";

const SELECT = `SELECT i.code, i.created_by, i.used_by, i.created_at, i.used_at, i.expires_at,
  u.username AS used_by_username FROM invites i LEFT JOIN users u ON u.id = i.used_by`;

/** The invites store over `sql`. */
export function pgInvites(sql: Sql): InviteStore {
  return {
    async insert(code, createdBy, expiresAt = null) {
      const createdAt = new Date().toISOString();
      await rows(
        sql,
        "INSERT INTO invites (code, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        [code, createdBy, createdAt, expiresAt],
      );
      return newInviteRow(code, createdBy, createdAt, expiresAt);
    },
    deleteUnused: async (code) =>
      await changes(sql, "DELETE FROM invites WHERE code = $1 AND used_at IS NULL", [code]) === 1,
    async find(code) {
      return (await rows<InviteRow>(sql, `${SELECT} WHERE i.code = $1`, [code]))[0];
    },
    async findUsedBy(userId) {
      return (await rows<InviteRow>(sql, `${SELECT} WHERE i.used_by = $1`, [userId]))[0];
    },
    // The row lock taken by UPDATE makes a concurrent consumer wait, then re-check the
    // WHERE clause against the committed row: exactly one of them changes it.
    consume: async (code, userId) =>
      await changes(
        sql,
        `UPDATE invites SET used_by = $1, used_at = $2
         WHERE code = $3 AND used_by IS NULL AND used_at IS NULL`,
        [userId, new Date().toISOString(), code],
      ) === 1,
    list: () => rows<InviteRow>(sql, `${SELECT} ORDER BY i.created_at DESC, i.seq DESC`),
    page: (q) => readPage(sql, inviteListing("$", q, "i.seq", ' COLLATE "C"'), q),
    async countUnused(now) {
      const [r] = await rows<{ n: number }>(
        sql,
        `SELECT COUNT(*) AS n FROM invites
         WHERE used_at IS NULL AND (expires_at IS NULL OR expires_at > $1)`,
        [now],
      );
      return Number(r.n);
    },
  };
}
