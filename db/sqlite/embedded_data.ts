/**
 * What an embedded database holds, read without changing it: a server starting on PostgreSQL in a
 * data directory whose `signet.db` was never copied refuses to start (server/serve.ts), so the
 * embedded data set is not silently left behind and its repositories' directories are not taken
 * for leftovers.
 */
import { DatabaseSync } from "node:sqlite";

/** Rows that make an embedded database worth keeping. */
export interface EmbeddedData {
  users: number;
  repos: number;
  bots: number;
}

/**
 * The users, repositories and registry bots in the SQLite file at `path` (a table it lacks counts
 * 0); null when there is no file.
 */
export function embeddedData(path: string): EmbeddedData | null {
  try {
    Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const count = (table: string) => {
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        .get(table);
      if (!exists) return 0;
      return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    };
    return { users: count("users"), repos: count("repos"), bots: count("registry_bots") };
  } finally {
    db.close();
  }
}

/** True when `data` holds any user, repository or bot. */
export function holdsData(data: EmbeddedData | null): data is EmbeddedData {
  return data !== null && data.users + data.repos + data.bots > 0;
}
