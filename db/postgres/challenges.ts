/** PostgreSQL login challenges store (see ../challenges.ts). */
import type { ChallengeRow, ChallengeStore } from "../challenges.ts";
import { changes, rows, type Sql } from "./sql.ts";

/** The challenges store over `sql`. */
export function pgChallenges(sql: Sql): ChallengeStore {
  return {
    async insert(username, nonce, nowMs) {
      await rows(
        sql,
        "INSERT INTO challenges (username, nonce, created_at, created_ms) VALUES ($1, $2, $3, $4)",
        [username, nonce, new Date(nowMs).toISOString(), nowMs],
      );
    },
    async find(username, nonce) {
      return (await rows<ChallengeRow>(
        sql,
        `SELECT id, username, nonce, created_at, created_ms FROM challenges
         WHERE username = $1 AND nonce = $2`,
        [username, nonce],
      ))[0];
    },
    delete: async (id) => await changes(sql, "DELETE FROM challenges WHERE id = $1", [id]) === 1,
    async deleteExpiredOf(username, cutoffMs) {
      await changes(sql, "DELETE FROM challenges WHERE username = $1 AND created_ms < $2", [
        username,
        cutoffMs,
      ]);
    },
    deleteExpired: (cutoffMs) =>
      changes(sql, "DELETE FROM challenges WHERE created_ms < $1", [cutoffMs]),
  };
}
