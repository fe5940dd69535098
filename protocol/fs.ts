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

/**
 * Publishes the complete file `tmp` at `path` unless `path` exists, then removes `tmp`; true when
 * this call published it. A hard link never replaces an existing name (O_EXCL semantics, on NFS
 * too), so of processes publishing one path at once exactly one wins and the others read a whole
 * file, never a half-written one.
 */
export async function publishOnce(tmp: string, path: string): Promise<boolean> {
  try {
    await Deno.link(tmp, path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return false;
    throw err;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}
