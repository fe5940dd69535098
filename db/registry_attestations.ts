/** Data access for published attestations. */
import type { Database } from "./database.ts";

/** Stores an attestation; returns false when one with the same id already exists. */
export function insertAttestation(
  db: Database,
  row: { id: string; issuer: string; subject: string; record: string; publishedAt: string },
): boolean {
  const result = db.prepare(
    `INSERT INTO registry_attestations (attestation_id, issuer, subject, record, published_at)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (attestation_id) DO NOTHING`,
  ).run(row.id, row.issuer, row.subject, row.record, row.publishedAt);
  return Number(result.changes) === 1;
}

/** The stored attestation with `id`, if any. */
export function findAttestation(db: Database, id: string): string | undefined {
  const row = db.prepare("SELECT record FROM registry_attestations WHERE attestation_id = ?")
    .get(id) as { record: string } | undefined;
  return row?.record;
}

/** A page of attestations about (`subject`) or by (`issuer`) a bot, oldest first. */
export function listAttestations(
  db: Database,
  opts: { botId: string; role: "subject" | "issuer"; afterSeq: number; limit: number },
): { seq: number; record: string }[] {
  const column = opts.role === "issuer" ? "issuer" : "subject";
  return (db.prepare(
    `SELECT seq, record FROM registry_attestations WHERE ${column} = ? AND seq > ? ORDER BY seq LIMIT ?`,
  ).all(opts.botId, opts.afterSeq, opts.limit) as { seq: number; record: string }[])
    .map((r) => ({ seq: Number(r.seq), record: r.record }));
}

/** Total number of attestations. */
export function countAttestations(db: Database): number {
  return Number(
    (db.prepare("SELECT COUNT(*) AS n FROM registry_attestations").get() as { n: number }).n,
  );
}
