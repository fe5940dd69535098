/** Data access for login challenges. */
import type { Database } from "./database.ts";

/** A stored login challenge. */
export interface ChallengeRow {
  id: number;
  username: string;
  nonce: string;
  created_at: string;
  created_ms: number;
}

/** Stores a challenge for `username`. */
export function insertChallenge(db: Database, username: string, nonce: string, nowMs: number) {
  db.prepare(
    "INSERT INTO challenges (username, nonce, created_at, created_ms) VALUES (?, ?, ?, ?)",
  ).run(username, nonce, new Date(nowMs).toISOString(), nowMs);
}

/** Finds the challenge of `username` with `nonce`. */
export function findChallenge(
  db: Database,
  username: string,
  nonce: string,
): ChallengeRow | undefined {
  return db.prepare("SELECT * FROM challenges WHERE username = ? AND nonce = ?")
    .get(username, nonce) as ChallengeRow | undefined;
}

/** Deletes one challenge by id; returns whether it still existed. */
export function deleteChallenge(db: Database, id: number): boolean {
  return Number(db.prepare("DELETE FROM challenges WHERE id = ?").run(id).changes) === 1;
}

/** Deletes the challenges of `username` created before `cutoffMs`. */
export function deleteExpiredChallengesOf(db: Database, username: string, cutoffMs: number) {
  db.prepare("DELETE FROM challenges WHERE username = ? AND created_ms < ?").run(
    username,
    cutoffMs,
  );
}

/** Deletes every challenge created before `cutoffMs`; returns how many went. */
export function deleteExpiredChallenges(db: Database, cutoffMs: number): number {
  return Number(db.prepare("DELETE FROM challenges WHERE created_ms < ?").run(cutoffMs).changes);
}
