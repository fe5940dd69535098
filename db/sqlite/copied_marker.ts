/**
 * The note `signet db copy` leaves beside the embedded database it copied (`signet.db.copied`): the
 * file itself stays untouched, so without the note nothing would tell a later `signet backup` or
 * a server started without SERVICE_DATABASE_URL that its data may be stale (what PostgreSQL took
 * after the copy is not in it).
 */

/** Where the note of the database at `databasePath` lives. */
export function copiedMarkerPath(databasePath: string): string {
  return `${databasePath}.copied`;
}

/** Leaves the note: the database was copied to `target` (a URL without its password) now. */
export async function markCopied(databasePath: string, target: string, now = new Date()) {
  await Deno.writeTextFile(
    copiedMarkerPath(databasePath),
    `signet db copy copied ${databasePath} to ${target} at ${now.toISOString()}.\n` +
      "What PostgreSQL took since then is not in this file. Delete this note to use the file anyway.\n",
    { mode: 0o600 },
  );
}

/** The target (a URL without its password) a note's first line names, or null. */
export function copiedTarget(note: string): string | null {
  return / to (\S+) at /.exec(note)?.[1] ?? null;
}

/** The note's first line (where and when the database was copied), or null when there is none. */
export async function copiedNote(databasePath: string): Promise<string | null> {
  try {
    return (await Deno.readTextFile(copiedMarkerPath(databasePath))).split("\n")[0];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}
