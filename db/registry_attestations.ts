/** The registry's attestations store. */

/** An attestation to store. */
export interface AttestationWrite {
  id: string;
  issuer: string;
  subject: string;
  /** The attestation's JSON text. */
  record: string;
  publishedAt: string;
}

/** Published attestations. */
export interface AttestationStore {
  /** Stores an attestation; false when one with the same id already exists. */
  insert(row: AttestationWrite): Promise<boolean>;
  /** The stored attestation (JSON text) with `id`, if any. */
  find(id: string): Promise<string | undefined>;
  /** A page of attestations about (`subject`) or by (`issuer`) a bot, oldest first. */
  list(
    opts: { botId: string; role: "subject" | "issuer"; afterSeq: number; limit: number },
  ): Promise<{ seq: number; record: string }[]>;
  /** Total number of attestations. */
  count(): Promise<number>;
}
