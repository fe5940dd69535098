/** Repository rows on SQLite. */
import type { Database } from "./database.ts";
import type { RepoRow, RepoStore } from "../repos.ts";
import type { Sync } from "./sync.ts";
import { DomainError } from "../../protocol/errors.ts";

const SELECT = `SELECT r.*, u.username AS owner FROM repos r JOIN users u ON u.id = r.owner_id`;

/** The repositories store over one SQLite connection. */
export class SqliteRepos implements Sync<RepoStore> {
  /** The methods that write. */
  static readonly WRITES = ["insert", "delete", "touchPushed"] as const;
  constructor(private readonly db: Database) {}

  find(owner: string, name: string): RepoRow | undefined {
    return this.db.prepare(`${SELECT} WHERE u.username = ? AND r.name = ?`).get(owner, name) as
      | RepoRow
      | undefined;
  }

  insert(ownerId: number, name: string): number {
    const taken = this.db.prepare(
      `${SELECT} WHERE r.owner_id = ? AND r.name = ?`,
    ).get(ownerId, name) as RepoRow | undefined;
    if (taken) {
      throw new DomainError("conflict", `repository ${taken.owner}/${name} already exists`);
    }
    const res = this.db.prepare("INSERT INTO repos (owner_id, name, created_at) VALUES (?, ?, ?)")
      .run(ownerId, name, new Date().toISOString());
    return Number(res.lastInsertRowid);
  }

  delete(id: number): boolean {
    return Number(this.db.prepare("DELETE FROM repos WHERE id = ?").run(id).changes) === 1;
  }

  list(owner?: string): RepoRow[] {
    if (owner !== undefined) {
      return this.db.prepare(`${SELECT} WHERE u.username = ? ORDER BY r.name`)
        .all(owner) as unknown as RepoRow[];
    }
    return this.db.prepare(`${SELECT} ORDER BY u.username, r.name`).all() as unknown as RepoRow[];
  }

  touchPushed(id: number): void {
    this.db.prepare("UPDATE repos SET pushed_at = ? WHERE id = ?").run(
      new Date().toISOString(),
      id,
    );
  }
}
