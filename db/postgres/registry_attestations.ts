/** PostgreSQL attestations store (see ../registry_attestations.ts). */
import type { AttestationStore } from "../registry_attestations.ts";
import { changes, rows, type Sql } from "./sql.ts";

/** The attestations store over `sql`. */
export function pgAttestations(sql: Sql): AttestationStore {
  return {
    insert: async (row) =>
      await changes(
        sql,
        `INSERT INTO registry_attestations (attestation_id, issuer, subject, record, published_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (attestation_id) DO NOTHING`,
        [row.id, row.issuer, row.subject, row.record, row.publishedAt],
      ) === 1,
    async find(id) {
      return (await rows<{ record: string }>(
        sql,
        "SELECT record FROM registry_attestations WHERE attestation_id = $1",
        [id],
      ))[0]?.record;
    },
    list(opts) {
      const column = opts.role === "issuer" ? "issuer" : "subject";
      return rows<{ seq: number; record: string }>(
        sql,
        `SELECT seq, record FROM registry_attestations WHERE ${column} = $1 AND seq > $2
         ORDER BY seq LIMIT $3`,
        [opts.botId, opts.afterSeq, opts.limit],
      );
    },
    async count() {
      const [r] = await rows<{ n: number }>(sql, "SELECT COUNT(*) AS n FROM registry_attestations");
      return r.n;
    },
  };
}
