/** `repo new <name>`: creates a repository owned by the caller. */
import { DomainError } from "../../../protocol/errors.ts";
import { createRepo } from "../../domain/repos.ts";
import { repoArgument, type SshCommand } from "./types.ts";

/** `repo new <name>` → `Created <user>/<name>`. `<user>/<name>` is accepted for the caller only. */
export const repoNew: SshCommand = {
  usage: "repo new <name>",
  summary: "create a repository",
  async run(inv) {
    const { owner, name } = repoArgument(inv, repoNew);
    if (owner !== inv.user.username) {
      throw new DomainError(
        "forbidden",
        `${inv.user.username} may not create repositories for ${owner}`,
      );
    }
    const repo = await createRepo(inv.ctx, inv.user, name);
    await inv.io.out(`Created ${repo.owner}/${repo.name}\n`);
    return 0;
  },
};
