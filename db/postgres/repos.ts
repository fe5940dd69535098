/** PostgreSQL repositories store (see ../repos.ts). */
import { DomainError } from "../../protocol/errors.ts";
import type { RepoRow, RepoStore } from "../repos.ts";
import { repoListing } from "../listings.ts";
import { readPage } from "./pages.ts";
import { changes, rows, type Sql } from "./sql.ts";

const SELECT = `SELECT r.id, r.owner_id, r.name, r.created_at, r.pushed_at, r.size_bytes,
  u.username AS owner
  FROM repos r JOIN users u ON u.id = r.owner_id`;

/** The repositories store over `sql`. */
export function pgRepos(sql: Sql): RepoStore {
  return {
    async find(owner, name) {
      return (await rows<RepoRow>(sql, `${SELECT} WHERE u.username = $1 AND r.name = $2`, [
        owner,
        name,
      ]))[0];
    },
    async insert(ownerId, name, sizeBytes = 0) {
      const [row] = await rows<{ id: number }>(
        sql,
        `INSERT INTO repos (owner_id, name, created_at, size_bytes) SELECT $1, $2, $3, $4
         WHERE NOT EXISTS (SELECT 1 FROM repos WHERE owner_id = $1 AND name = $2)
         ON CONFLICT (owner_id, name) DO NOTHING RETURNING id`,
        [ownerId, name, new Date().toISOString(), sizeBytes],
      );
      if (!row) {
        const [owner] = await rows<{ username: string }>(
          sql,
          "SELECT username FROM users WHERE id = $1",
          [ownerId],
        );
        throw new DomainError("conflict", `repository ${owner?.username}/${name} already exists`);
      }
      return row.id;
    },
    delete: async (id) => await changes(sql, "DELETE FROM repos WHERE id = $1", [id]) === 1,
    list: (owner) =>
      owner !== undefined
        ? rows<RepoRow>(sql, `${SELECT} WHERE u.username = $1 ORDER BY r.name`, [owner])
        : rows<RepoRow>(sql, `${SELECT} ORDER BY u.username, r.name`),
    page: (q) => readPage(sql, repoListing("$", q, ' COLLATE "C"'), q),
    async totalSize() {
      const [r] = await rows<{ n: string }>(
        sql,
        "SELECT COALESCE(SUM(size_bytes), 0)::text AS n FROM repos",
      );
      return Number(r.n);
    },
    async touchPushed(id, sizeBytes) {
      const at = new Date().toISOString();
      if (sizeBytes === undefined) {
        await changes(sql, "UPDATE repos SET pushed_at = $1 WHERE id = $2", [at, id]);
      } else {
        await changes(sql, "UPDATE repos SET pushed_at = $1, size_bytes = $2 WHERE id = $3", [
          at,
          sizeBytes,
          id,
        ]);
      }
    },
    async setSize(id, sizeBytes) {
      await changes(sql, "UPDATE repos SET size_bytes = $1 WHERE id = $2", [sizeBytes, id]);
    },
  };
}
