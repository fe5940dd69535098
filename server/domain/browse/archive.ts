/**
 * A commit's files as one download (`git archive`), as forges offer them: `.tar.gz` and `.zip`,
 * every file under one top directory `<repo>-<ref>/`. Streamed as git writes it, in a download slot
 * (git_read.ts), so a large archive never sits in memory and slow downloads never hold the slots
 * pages are read with.
 */
import type { Signet } from "../../context.ts";
import { DomainError } from "../../../protocol/errors.ts";
import { gitStream } from "./git_read.ts";
import type { BrowseRepo } from "./refs.ts";

/** The formats offered: the URL's suffix, git's `--format`, the answer's media type. */
export const ARCHIVE_FORMATS = {
  "tar.gz": { git: "tar.gz", type: "application/gzip" },
  "zip": { git: "zip", type: "application/zip" },
} as const;

/** One of ARCHIVE_FORMATS. */
export type ArchiveFormat = keyof typeof ARCHIVE_FORMATS;

/** How long one archive may take to stream before git is killed (as raw downloads). */
const ARCHIVE_TIMEOUT_MS = 10 * 60_000;

/**
 * Splits the last part of `/archive/<ref>.<format>` (the whole `<ref>.<format>`, slashes kept):
 * null when it ends in no offered format or leaves no ref.
 */
export function splitArchiveName(
  refAndFormat: string,
): { ref: string; format: ArchiveFormat } | null {
  for (const format of Object.keys(ARCHIVE_FORMATS) as ArchiveFormat[]) {
    const suffix = `.${format}`;
    if (refAndFormat.endsWith(suffix) && refAndFormat.length > suffix.length) {
      return { ref: refAndFormat.slice(0, -suffix.length), format };
    }
  }
  return null;
}

/**
 * The archive's base name, which is also its top directory: `<repo>-<ref>`, a ref's slashes as
 * dashes (`site-feature-x`), a commit id in full.
 */
export function archiveBaseName(repoName: string, ref: string): string {
  return `${repoName}-${ref.replaceAll("/", "-")}`;
}

/**
 * The repository's `info/attributes` (which outrank every `.gitattributes` in its trees) while
 * archives are made: `export-subst` and `working-tree-encoding` make git read a whole file into
 * memory to convert it, so a pushed file of a few MB that inflates to gigabytes could take that
 * much memory per download; every other conversion streams. `export-ignore` still applies.
 */
export const ARCHIVE_ATTRIBUTES = "# Signet: no conversion that reads a whole file into memory.\n" +
  "* -export-subst -working-tree-encoding\n";

/**
 * Writes ARCHIVE_ATTRIBUTES into the repository at `dir` unless it holds them already (replaced
 * whole and atomically: Signet owns the file). Not found when the repository's directory is gone
 * (a delete under way): no directory is made again.
 */
export async function ensureArchiveAttributes(dir: string): Promise<void> {
  const path = `${dir}/info/attributes`;
  try {
    if (await Deno.readTextFile(path) === ARCHIVE_ATTRIBUTES) return;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  try {
    await Deno.mkdir(`${dir}/info`).catch((err) => {
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    });
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(temp, ARCHIVE_ATTRIBUTES);
    await Deno.rename(temp, path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new DomainError("not_found", "not found");
    throw err;
  }
}

/**
 * Streams the archive of `commit` in `format`, every path under `<baseName>/`. The repository's
 * `.gitattributes` apply as git defines them (`export-ignore` leaves files out), except the
 * conversions ARCHIVE_ATTRIBUTES turns off.
 */
export async function streamArchive(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  format: ArchiveFormat,
  baseName: string,
  client?: string,
): Promise<ReadableStream<Uint8Array>> {
  await ensureArchiveAttributes(repo.dir);
  const args = [
    "archive",
    `--format=${ARCHIVE_FORMATS[format].git}`,
    `--prefix=${baseName}/`,
    commit,
  ];
  return await gitStream(ctx, repo.dir, args, { timeoutMs: ARCHIVE_TIMEOUT_MS, client });
}
