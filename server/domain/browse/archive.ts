/**
 * A commit's files as one download (`git archive`), as forges offer them: `.tar.gz` and `.zip`,
 * every file under one top directory `<repo>-<ref>/`. Streamed as git writes it, in a download slot
 * (git_read.ts), so a large archive never sits in memory and slow downloads never hold the slots
 * pages are read with.
 */
import type { Signet } from "../../context.ts";
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
 * Streams the archive of `commit` in `format`, every path under `<baseName>/`. The repository's
 * own `.gitattributes` apply as git defines them (`export-ignore` leaves files out).
 */
export async function streamArchive(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  format: ArchiveFormat,
  baseName: string,
  client?: string,
): Promise<ReadableStream<Uint8Array>> {
  const args = [
    "archive",
    `--format=${ARCHIVE_FORMATS[format].git}`,
    `--prefix=${baseName}/`,
    commit,
  ];
  return await gitStream(ctx, repo.dir, args, { timeoutMs: ARCHIVE_TIMEOUT_MS, client });
}
