/** Disk usage of repositories. */
import type { RepoRow } from "../../db/repos.ts";
import type { Signet } from "../context.ts";
import { repoDir } from "./repos.ts";

/** Total size in bytes of the files under a repository's directory. */
export async function repoDiskUsage(ctx: Signet, repo: RepoRow): Promise<number> {
  return await dirSize(repoDir(ctx, repo.owner, repo.name));
}

async function dirSize(path: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(path)) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) total += await dirSize(child);
      else if (entry.isFile) total += (await Deno.stat(child)).size;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return total;
}
