/** PostgreSQL anti-replay store (see ../registry_nonces.ts). */
import type { NonceStore } from "../registry_nonces.ts";
import { changes, rows, type Sql } from "./sql.ts";

/** The nonces store over `sql`. */
export function pgNonces(sql: Sql): NonceStore {
  return {
    async keyHex() {
      const [row] = await rows<{ value: string }>(
        sql,
        "SELECT value FROM registry_meta WHERE name = 'nonce_key'",
      );
      return row.value;
    },
    // The primary key decides: of concurrent inserts of one nonce, one inserts, the others
    // wait for it to commit and then do nothing.
    markUsed: async (nonce, expiresMs) =>
      await changes(
        sql,
        "INSERT INTO registry_used_nonces (nonce, expires_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [nonce, expiresMs],
      ) === 1,
    purge: (nowMs) =>
      changes(sql, "DELETE FROM registry_used_nonces WHERE expires_ms < $1", [nowMs]),
  };
}
