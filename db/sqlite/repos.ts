/** Repository rows on SQLite. */
import type { Database } from "./database.ts";
import type { RepoPageQuery, RepoRow, RepoStore } from "../repos.ts";
import type { Sync } from "./sync.ts";
import { DomainError } from "../../protocol/errors.ts";
import type { Page } from "../pages.ts";
import { readPage } from "./pages.ts";
import { repoListing } from "../listings.ts";

const SELECT = `SELECT r.*, u.username AS owner FROM repos r JOIN users u ON u.id = r.owner_id`;

/** The repositories store over one SQLite connection. */
export class SqliteRepos implements Sync<RepoStore> {
  /** The methods that write. */
  static readonly WRITES = ["insert", "delete", "touchPushed", "setSize"] as const;
  constructor(private readonly db: Database) {}

  find(owner: string, name: string): RepoRow | undefined {
    return this.db.prepare(`${SELECT} WHERE u.username = ? AND r.name = ?`).get(owner, name) as
      | RepoRow
      | undefined;
  }

  insert(ownerId: number, name: string, sizeBytes = 0): number {
    const taken = this.db.prepare(
      `${SELECT} WHERE r.owner_id = ? AND r.name = ?`,
    ).get(ownerId, name) as RepoRow | undefined;
    if (taken) {
      throw new DomainError("conflict", `repository ${taken.owner}/${name} already exists`);
    }
    const res = this.db.prepare(
      "INSERT INTO repos (owner_id, name, created_at, size_bytes) VALUES (?, ?, ?, ?)",
    ).run(ownerId, name, new Date().toISOString(), sizeBytes);
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

  page(q: RepoPageQuery): Page<RepoRow> {
    return readPage<RepoRow>(this.db, repoListing("?", q), q);
  }

  totalSize(): number {
    return Number(
      (this.db.prepare("SELECT COALESCE(SUM(size_bytes), 0) AS n FROM repos").get() as {
        n: number;
      }).n,
    );
  }

  touchPushed(id: number, sizeBytes?: number): void {
    const at = new Date().toISOString();
    if (sizeBytes === undefined) {
      this.db.prepare("UPDATE repos SET pushed_at = ? WHERE id = ?").run(at, id);
    } else {
      this.db.prepare("UPDATE repos SET pushed_at = ?, size_bytes = ? WHERE id = ?")
        .run(at, sizeBytes, id);
    }
  }

  setSize(id: number, sizeBytes: number): void {
    this.db.prepare("UPDATE repos SET size_bytes = ? WHERE id = ?").run(sizeBytes, id);
  }
}
