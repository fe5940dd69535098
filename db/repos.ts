/** The repositories store (the rows; the bare repositories live on disk). */
import type { Page, PageQuery } from "./pages.ts";

/** A stored repository joined with its owner's username. */
export interface RepoRow {
  id: number;
  owner_id: number;
  owner: string;
  name: string;
  created_at: string;
  pushed_at: string | null;
  /**
   * Bytes under the repository's directory, measured at create and after each push; null for a
   * repository not measured since the column was added (measured when first listed).
   */
  size_bytes: number | null;
}

/** How repository listings sort: by `owner/name`, creation time, or last push (never last). */
export type RepoSort = "name" | "created" | "pushed";

/** A page of repositories: of one owner or all, whose `owner/name` contains every word. */
export interface RepoPageQuery extends PageQuery {
  sort: RepoSort;
  owner?: string;
  /** Lowercase words that `owner/name`, lowercased, must all contain. */
  words?: readonly string[];
}

/** Repository rows. */
export interface RepoStore {
  /** The repository `owner/name`, if any. */
  find(owner: string, name: string): Promise<RepoRow | undefined>;
  /**
   * Inserts a repository row of `sizeBytes` (default 0); returns its id. A taken name is a
   * DomainError("conflict").
   */
  insert(ownerId: number, name: string, sizeBytes?: number): Promise<number>;
  /**
   * Deletes a repository row by id; whether it was there (of concurrent deletes of one row,
   * exactly one gets true).
   */
  delete(id: number): Promise<boolean>;
  /** Repositories, of one owner or all, ordered by owner then name. */
  list(owner?: string): Promise<RepoRow[]>;
  /**
   * One page of repositories. Keys: name (`owner`, `name`), created (`created_at`, `id`), pushed
   * (`pushed_at` or "" when never pushed, `id`).
   */
  page(q: RepoPageQuery): Promise<Page<RepoRow>>;
  /** The sum of every repository's measured size, in bytes. */
  totalSize(): Promise<number>;
  /** Records the time of a successful push and, when given, the size it left. */
  touchPushed(id: number, sizeBytes?: number): Promise<void>;
  /** Records a repository's size in bytes. */
  setSize(id: number, sizeBytes: number): Promise<void>;
}
