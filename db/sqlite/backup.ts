/** Consistent online snapshots of the SQLite database. */
import { DatabaseSync } from "node:sqlite";

/**
 * Writes a transactionally consistent copy of the database at `source` to the new file `target`,
 * readable by its owner only (mode 0600, as the live database).
 */
export function snapshotDatabase(source: string, target: string): void {
  // VACUUM INTO fills an empty file and keeps its mode; a file it creates gets the umask's.
  Deno.writeFileSync(target, new Uint8Array(0), { createNew: true, mode: 0o600 });
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
}

/** Lists `owner/name` of every repository recorded in the database file at `path`. */
export function repositoriesIn(path: string): { owner: string; name: string }[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(
      "SELECT u.username AS owner, r.name AS name FROM repos r JOIN users u ON u.id = r.owner_id ORDER BY 1, 2",
    ).all() as unknown as { owner: string; name: string }[];
  } finally {
    db.close();
  }
}

/** Runs SQLite's integrity check on the database at `path`; returns "ok" or the problems. */
export function integrityCheck(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join("\n");
  } finally {
    db.close();
  }
}
