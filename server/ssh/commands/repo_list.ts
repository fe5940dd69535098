/** `repo list [user]`: lists a user's repositories, the caller's by default. */
import { listReposOf } from "../../domain/repos.ts";
import { expectArgs, type SshCommand } from "./types.ts";

/** `repo list [user]` → one `<user>/<name>` per line (nothing when there are none). */
export const repoList: SshCommand = {
  usage: "repo list [user]",
  summary: "list repositories of a user (default: you)",
  async run(inv) {
    expectArgs(inv, repoList, 0, 1);
    const repos = await listReposOf(inv.ctx, inv.args[0] ?? inv.user.username);
    const text = repos.map((r) => `${r.owner}/${r.name}\n`).join("");
    if (text) await inv.io.out(text);
    return 0;
  },
};
