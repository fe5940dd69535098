/** Databases as an older Signet left them, for the tests of the upgrade (migration) path. */
import { DatabaseSync } from "node:sqlite";
import { migrate } from "../../db/sqlite/database.ts";

/**
 * A database file in a new temp dir with the schema of migration `version` and no more, open
 * (to be filled, then closed before the code under test opens `path`).
 */
export async function databaseAt(version: number): Promise<{ path: string; old: DatabaseSync }> {
  const path = `${await Deno.makeTempDir()}/old.db`;
  const old = new DatabaseSync(path);
  migrate(old, version);
  return { path, old };
}
