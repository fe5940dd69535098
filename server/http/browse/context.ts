/** What a repository page is rendered from: the server, the open repository, the request. */
import type { Signet } from "../../context.ts";
import type { BrowseRepo } from "../../domain/browse/refs.ts";
import { RepoUrls } from "./frame.tsx";

/** One request for a page of one repository. */
export interface PageRequest {
  ctx: Signet;
  repo: BrowseRepo;
  urls: RepoUrls;
  /** The client's address (git readers are shared fairly between clients). */
  client: string;
  query: URLSearchParams;
}

/** A page request for `repo`. */
export function pageRequest(
  ctx: Signet,
  repo: BrowseRepo,
  client: string,
  query: URLSearchParams,
): PageRequest {
  return { ctx, repo, urls: new RepoUrls(repo.row.owner, repo.row.name), client, query };
}

/** A positive page number from `?page=` (1 when absent or malformed), at most `max`. */
export function pageNumber(query: URLSearchParams, max: number): number | null {
  const raw = query.get("page");
  if (raw === null) return 1;
  if (!/^[1-9][0-9]{0,6}$/.test(raw)) return null;
  const n = Number(raw);
  return n <= max ? n : null;
}
