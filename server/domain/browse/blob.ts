/** Reading one file of a commit: `git cat-file --batch` (its size first, its bytes when small). */
import type { Signet } from "../../context.ts";
import { catObject, gitStream } from "./git_read.ts";
import type { BrowseRepo } from "./refs.ts";

/** Files larger than this are offered for download instead of shown. */
export const MAX_SHOWN_BYTES = 1024 * 1024;

/** A file read from a commit. */
export type BlobResult =
  | {
    kind: "blob";
    oid: string;
    size: number;
    /** Its bytes, or null when it is over the limit asked for. */
    bytes: Uint8Array | null;
  }
  | { kind: "tree" }
  | { kind: "missing" };

/**
 * Reads `path` of `commit`: its bytes when at most `limit` (MAX_SHOWN_BYTES by default), else only
 * its size. One git process; a larger file is never read (git_read.ts, catObject).
 */
export async function readBlob(
  ctx: Signet,
  repo: BrowseRepo,
  commit: string,
  path: string,
  client?: string,
  limit = MAX_SHOWN_BYTES,
): Promise<BlobResult> {
  const found = await catObject(ctx, repo.dir, `${commit}:${path}`, limit, client);
  if (!found.found) return { kind: "missing" };
  if (found.type === "tree") return { kind: "tree" };
  if (found.type !== "blob") return { kind: "missing" };
  return { kind: "blob", oid: found.oid, size: found.size, bytes: found.bytes };
}

/** Streams the blob `oid` of `repo` (a raw download), with a generous timeout. */
export async function streamBlob(
  ctx: Signet,
  repo: BrowseRepo,
  oid: string,
  client?: string,
): Promise<ReadableStream<Uint8Array>> {
  return await gitStream(ctx, repo.dir, ["cat-file", "blob", oid], {
    timeoutMs: 10 * 60_000,
    client,
  });
}

/** Whether `bytes` look binary the way git decides it: a NUL in the first 8,000 bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
