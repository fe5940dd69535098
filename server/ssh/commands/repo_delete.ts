/** `repo delete <name>`: deletes one of the caller's repositories. */
import { deleteRepo } from "../../domain/repos.ts";
import { repoArgument, type SshCommand } from "./types.ts";

/** `repo delete <name>` → `Deleted <user>/<name>`; `<owner>/<name>` must be the caller's own. */
export const repoDelete: SshCommand = {
  usage: "repo delete <name>",
  summary: "delete one of your repositories",
  async run(inv) {
    const { owner, name } = repoArgument(inv, repoDelete);
    const repo = await deleteRepo(inv.ctx, inv.user, owner, name);
    await inv.io.out(`Deleted ${repo.owner}/${repo.name}\n`);
    return 0;
  },
};
