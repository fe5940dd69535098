/**
 * `/<owner>/<repo>/archive/<ref>.tar.gz` and `.zip`: the files of a branch, tag or commit as one
 * download (server/domain/browse/archive.ts), always an attachment, never rendered.
 */
import { urlSegments } from "../../domain/browse/paths.ts";
import { resolveRef } from "../../domain/browse/refs.ts";
import {
  ARCHIVE_FORMATS,
  archiveBaseName,
  splitArchiveName,
  streamArchive,
} from "../../domain/browse/archive.ts";
import type { PageRequest } from "./context.ts";
import { attachment, RAW_HEADERS } from "./raw.ts";

/**
 * The archive named by `rest` (the path's segments after `archive/`), or null when it names no
 * offered format of an existing branch, tag or commit (a path after the ref included).
 */
export async function serveArchive(
  req: PageRequest,
  rest: string[],
  method: string,
): Promise<Response | null> {
  const name = splitArchiveName(rest.join("/"));
  const segments = name && urlSegments(name.ref);
  const at = segments && await resolveRef(req.ctx, req.repo, segments, req.client);
  if (!name || !at || at.path.length > 0) return null;
  const base = archiveBaseName(req.repo.row.name, at.ref);
  const headers = {
    ...RAW_HEADERS,
    "Content-Type": ARCHIVE_FORMATS[name.format].type,
    "Content-Disposition": attachment(`${base}.${name.format}`),
  };
  if (method === "HEAD") return new Response(null, { headers });
  const body = await streamArchive(req.ctx, req.repo, at.commit, name.format, base, req.client);
  return new Response(body, { headers });
}
