/** A repository as the hosting API returns it (`/api/repos…`); the admin API adds its size. */
export interface RepoView {
  owner: string;
  name: string;
  created_at: string;
  pushed_at: string | null;
  clone_urls: { http: string; ssh: string | null };
}
