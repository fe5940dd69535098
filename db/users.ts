/** The users store: accounts, each with one SSH key. */

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
}
