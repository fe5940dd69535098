/** Login challenges on SQLite. */
import type { Database } from "./database.ts";
import type { ChallengeRow, ChallengeStore } from "../challenges.ts";
import type { Sync } from "./sync.ts";

/** The challenges store over one SQLite connection. */
export class SqliteChallenges implements Sync<ChallengeStore> {
  /** The methods that write. */
  static readonly WRITES = ["insert", "delete", "deleteExpiredOf", "deleteExpired"] as const;
  constructor(private readonly db: Database) {}

  insert(username: string, nonce: string, nowMs: number): void {
    this.db.prepare(
      "INSERT INTO challenges (username, nonce, created_at, created_ms) VALUES (?, ?, ?, ?)",
    ).run(username, nonce, new Date(nowMs).toISOString(), nowMs);
  }

  find(username: string, nonce: string): ChallengeRow | undefined {
    return this.db.prepare("SELECT * FROM challenges WHERE username = ? AND nonce = ?")
      .get(username, nonce) as ChallengeRow | undefined;
  }

  delete(id: number): boolean {
    return Number(this.db.prepare("DELETE FROM challenges WHERE id = ?").run(id).changes) === 1;
  }

  deleteExpiredOf(username: string, cutoffMs: number): void {
    this.db.prepare("DELETE FROM challenges WHERE username = ? AND created_ms < ?")
      .run(username, cutoffMs);
  }

  deleteExpired(cutoffMs: number): number {
    return Number(
      this.db.prepare("DELETE FROM challenges WHERE created_ms < ?").run(cutoffMs).changes,
    );
  }
}
