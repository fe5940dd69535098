/** `help` and `repo help`: the list of SSH commands. */
import { capabilities } from "../messages.ts";
import type { SshCommand } from "./types.ts";

/** `help` → what the caller can do over SSH, on stdout, exit 0. */
export const help: SshCommand = {
  usage: "help",
  summary: "show this help",
  async run(inv) {
    await inv.io.out(
      `Signet over SSH, signed in as ${inv.user.username}. Commands:\n` +
        capabilities(inv.ctx, inv.user.username),
    );
    return 0;
  },
};
