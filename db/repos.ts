/** Data access for repositories. */
import type { Database } from "./database.ts";

/** A stored repository joined with its owner's username. */
export interface RepoRow {
  id: number;
  owner_id: number;
  owner: string;
  name: string;
  created_at: string;
  pushed_at: string | null;
}

const SELECT = `SELECT r.*, u.username AS owner FROM repos r JOIN users u ON u.id = r.owner_id`;

/** Finds a repository by owner username and name. */
export function findRepo(db: Database, owner: string, name: string): RepoRow | undefined {
  return db.prepare(`${SELECT} WHERE u.username = ? AND r.name = ?`).get(owner, name) as
    | RepoRow
    | undefined;
}

/** Inserts a repository row. */
export function insertRepo(db: Database, ownerId: number, name: string): number {
  const res = db.prepare("INSERT INTO repos (owner_id, name, created_at) VALUES (?, ?, ?)")
    .run(ownerId, name, new Date().toISOString());
  return Number(res.lastInsertRowid);
}

/** Deletes a repository row by id. */
export function deleteRepoRow(db: Database, id: number): void {
  db.prepare("DELETE FROM repos WHERE id = ?").run(id);
}

/** Lists repositories, optionally of one owner, ordered by owner then name. */
export function listRepos(db: Database, owner?: string): RepoRow[] {
  if (owner !== undefined) {
    return db.prepare(`${SELECT} WHERE u.username = ? ORDER BY r.name`).all(
      owner,
    ) as unknown as RepoRow[];
  }
  return db.prepare(`${SELECT} ORDER BY u.username, r.name`).all() as unknown as RepoRow[];
}

/** Records the time of a successful push. */
export function touchRepoPushed(db: Database, id: number): void {
  db.prepare("UPDATE repos SET pushed_at = ? WHERE id = ?").run(new Date().toISOString(), id);
}
