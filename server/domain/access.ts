/** The access rules of the hosting service, used by every transport. */
import type { UserRow } from "../../db/users.ts";
import type { RepoRow } from "../../db/repos.ts";
import { DomainError } from "../../protocol/errors.ts";

/** What a git transfer does to a repository. */
export type GitService = "git-upload-pack" | "git-upload-archive" | "git-receive-pack";

/** How the caller reached us: over HTTPS clone is anonymous, over SSH a registered key is needed. */
export type Transport = "http" | "ssh";

/** True when `service` writes to the repository. */
export function isPush(service: GitService): boolean {
  return service === "git-receive-pack";
}

/**
 * Decides whether `user` (undefined = anonymous) may run `service` on `repo` over `transport`.
 * Throws DomainError("unauthorized") when credentials are needed, ("forbidden") when refused.
 */
export function authorizeGit(
  transport: Transport,
  service: GitService,
  repo: RepoRow,
  user: UserRow | undefined,
): void {
  if (!isPush(service)) {
    if (transport === "ssh" && !user) {
      throw new DomainError("unauthorized", "only registered users may clone over SSH");
    }
    return;
  }
  if (!user) throw new DomainError("unauthorized", "pushing requires credentials");
  mustOwn(repo, user, "push to");
}

/** Throws DomainError("forbidden") unless `user` owns `repo`; `verb` completes the message. */
export function mustOwn(repo: RepoRow, user: UserRow, verb: string): void {
  if (repo.owner_id !== user.id) {
    throw new DomainError(
      "forbidden",
      `${user.username} may not ${verb} ${repo.owner}/${repo.name}: only its owner may`,
    );
  }
}
