/** Published attestations on SQLite. */
import type { Database } from "./database.ts";
import type { AttestationStore, AttestationWrite } from "../registry_attestations.ts";
import type { Sync } from "./sync.ts";

/** The attestations store over one SQLite connection. */
export class SqliteAttestations implements Sync<AttestationStore> {
  /** The methods that write. */
  static readonly WRITES = ["insert"] as const;
  constructor(private readonly db: Database) {}

  insert(row: AttestationWrite): boolean {
    const result = this.db.prepare(
      `INSERT INTO registry_attestations (attestation_id, issuer, subject, record, published_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (attestation_id) DO NOTHING`,
    ).run(row.id, row.issuer, row.subject, row.record, row.publishedAt);
    return Number(result.changes) === 1;
  }

  find(id: string): string | undefined {
    const row = this.db.prepare(
      "SELECT record FROM registry_attestations WHERE attestation_id = ?",
    ).get(id) as { record: string } | undefined;
    return row?.record;
  }

  list(
    opts: { botId: string; role: "subject" | "issuer"; afterSeq: number; limit: number },
  ): { seq: number; record: string }[] {
    const column = opts.role === "issuer" ? "issuer" : "subject";
    return (this.db.prepare(
      `SELECT seq, record FROM registry_attestations WHERE ${column} = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ).all(opts.botId, opts.afterSeq, opts.limit) as { seq: number; record: string }[])
      .map((r) => ({ seq: Number(r.seq), record: r.record }));
  }

  count(): number {
    return Number(
      (this.db.prepare("SELECT COUNT(*) AS n FROM registry_attestations").get() as { n: number })
        .n,
    );
  }
}
