/** The repositories store (the rows; the bare repositories live on disk). */

/** A stored repository joined with its owner's username. */
export interface RepoRow {
  id: number;
  owner_id: number;
  owner: string;
  name: string;
  created_at: string;
  pushed_at: string | null;
}

/** Repository rows. */
export interface RepoStore {
  /** The repository `owner/name`, if any. */
  find(owner: string, name: string): Promise<RepoRow | undefined>;
  /** Inserts a repository row; returns its id. A taken name is a DomainError("conflict"). */
  insert(ownerId: number, name: string): Promise<number>;
  /**
   * Deletes a repository row by id; whether it was there (of concurrent deletes of one row,
   * exactly one gets true).
   */
  delete(id: number): Promise<boolean>;
  /** Repositories, of one owner or all, ordered by owner then name. */
  list(owner?: string): Promise<RepoRow[]>;
  /** Records the time of a successful push. */
  touchPushed(id: number): Promise<void>;
}
