/** Disk usage of directories (repositories' sizes are measured with it and stored in their rows). */

/** Total size in bytes of the files under `path`; 0 when it does not exist. */
export async function dirSize(path: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(path)) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) total += await dirSize(child);
      else if (entry.isFile) total += await Deno.stat(child).then((s) => s.size, notFoundIsZero);
    }
  } catch (err) {
    return notFoundIsZero(err);
  }
  return total;
}

// A file or directory removed while being measured (a gc, a delete) counts as nothing.
function notFoundIsZero(err: unknown): number {
  if (err instanceof Deno.errors.NotFound) return 0;
  throw err;
}
