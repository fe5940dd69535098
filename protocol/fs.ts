/** Small file-system helpers shared by the server, the client and the tests. */

/** True when `path` exists (without following a final symlink); other errors are thrown. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
