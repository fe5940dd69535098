/** Shapes of the admin API's JSON replies. */
import type { RepoView } from "../../protocol/repos.ts";

/** GET /api/admin/info */
export interface ServiceInfo {
  base_url: string;
  ssh: { host: string; port: number } | null;
  registry_url: string | null;
}

/** One entry of GET /api/admin/invites. */
export interface Invite {
  code: string;
  created_at: string;
  used_at: string | null;
  used_by: { id: number; username: string } | null;
  /** Null: never expires (an invite from before expiries). */
  expires_at: string | null;
  state: "unused" | "used" | "expired";
}

/** One entry of GET /api/admin/users. */
export interface User {
  id: number;
  username: string;
  public_key: string;
  fingerprint: string;
  created_at: string;
  repo_count: number;
}

/** One entry of GET /api/admin/repos. */
export interface Repo extends RepoView {
  size_bytes: number;
}

/** The paging fields of a listing's reply (server/domain/listing.ts). */
export interface PageInfo {
  total: number;
  offset: number;
  limit: number;
  sort: string;
  order: "asc" | "desc";
  next: string | null;
  prev: string | null;
}

/** GET /api/admin/invites */
export interface InvitesPage extends PageInfo {
  invites: Invite[];
  unused: number;
  state: "used" | "unused" | "expired" | null;
}

/** GET /api/admin/users */
export interface UsersPage extends PageInfo {
  users: User[];
}

/** GET /api/admin/repos */
export interface ReposPage extends PageInfo {
  repos: Repo[];
  size_bytes_total: number;
}

/** One live token of a user (never the secret). */
export interface Token {
  id: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
}

/** GET /api/admin/users/:name */
export interface UserDetail {
  user: User;
  tokens: Token[];
  /** The invite they signed up with (null: none left, e.g. from a backup without it). */
  invite: { code: string; created_at: string } | null;
}
