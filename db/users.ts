/** The users store: accounts, each with one SSH key. */
import type { Page, PageQuery } from "./pages.ts";

/** A stored account. */
export interface UserRow {
  id: number;
  username: string;
  public_key: string;
  created_at: string;
}

/** A user with the number of repositories they own, for admin listings. */
export interface UserSummaryRow extends UserRow {
  repo_count: number;
}

/** How user listings sort: by username, or by creation (keys `created_at`, `id`). */
export type UserSort = "name" | "created";

/** A page of users whose username contains every word. */
export interface UserPageQuery extends PageQuery {
  sort: UserSort;
  /** Lowercase words the username must all contain. */
  words?: readonly string[];
}

/** Accounts, by name, id or key. */
export interface UserStore {
  /** The user named `username`, if any. */
  findByName(username: string): Promise<UserRow | undefined>;
  /** The user with id `id`, if any. */
  findById(id: number): Promise<UserRow | undefined>;
  /** The user registered with the normalized `ssh-ed25519 <base64>` key, if any. */
  findByKey(publicKey: string): Promise<UserRow | undefined>;
  /** Inserts a user and returns it; a taken name or key is a DomainError("conflict"). */
  insert(username: string, publicKey: string): Promise<UserRow>;
  /** Every user, oldest first, with their repository counts. */
  list(): Promise<UserSummaryRow[]>;
  /** One page of users with their repository counts. Keys: name (`username`, `id`), created. */
  page(q: UserPageQuery): Promise<Page<UserSummaryRow>>;
}
