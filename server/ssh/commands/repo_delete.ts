/** `repo delete <name>`: deletes one of the caller's repositories. */
import { parseRepoPath } from "../../../protocol/names.ts";
import { deleteRepo } from "../../domain/repos.ts";
import { expectArgs, type SshCommand } from "./types.ts";

/** `repo delete <name>` → `Deleted <user>/<name>`; `<owner>/<name>` must be the caller's own. */
export const repoDelete: SshCommand = {
  usage: "repo delete <name>",
  summary: "delete one of your repositories",
  async run(inv) {
    expectArgs(inv, repoDelete, 1, 1);
    const arg = inv.args[0];
    const { owner, name } = arg.includes("/")
      ? parseRepoPath(arg)
      : { owner: inv.user.username, name: arg };
    const repo = await deleteRepo(inv.ctx, inv.user, owner, name);
    await inv.io.out(`Deleted ${repo.owner}/${repo.name}\n`);
    return 0;
  },
};
