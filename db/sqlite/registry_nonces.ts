/** The registry's used nonces and nonce key on SQLite. */
import type { Database } from "./database.ts";
import type { NonceStore } from "../registry_nonces.ts";
import type { Sync } from "./sync.ts";

/** The nonces store over one SQLite connection. */
export class SqliteNonces implements Sync<NonceStore> {
  /** The methods that write. */
  static readonly WRITES = ["markUsed", "purge"] as const;
  constructor(private readonly db: Database) {}

  keyHex(): string {
    return (this.db.prepare("SELECT value FROM registry_meta WHERE name = 'nonce_key'").get() as {
      value: string;
    }).value;
  }

  markUsed(nonce: string, expiresMs: number): boolean {
    const r = this.db.prepare(
      "INSERT INTO registry_used_nonces (nonce, expires_ms) VALUES (?, ?) ON CONFLICT DO NOTHING",
    ).run(nonce, expiresMs);
    return Number(r.changes) === 1;
  }

  purge(nowMs: number): number {
    return Number(
      this.db.prepare("DELETE FROM registry_used_nonces WHERE expires_ms < ?").run(nowMs).changes,
    );
  }
}
