/** Shapes of the admin API's JSON replies. */

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
  state: "unused" | "used";
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
export interface Repo {
  owner: string;
  name: string;
  created_at: string;
  pushed_at: string | null;
  clone_urls: { http: string; ssh: string | null };
  size_bytes: number;
}
