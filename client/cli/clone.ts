/** `signet clone`: clone over HTTPS with the credential helper configured for push. */
import { helpText } from "./help.ts";
import { DomainError } from "../../protocol/errors.ts";
import { validateRepoName, validateUsername } from "../../protocol/names.ts";
import { ApiError } from "../api.ts";
import { parseArgs } from "../args.ts";
import { CliError, UsageError } from "../errors.ts";
import { credentialHelperValue } from "../self.ts";
import { openSession } from "../session.ts";
import type { Command } from "./command.ts";

/** `signet clone <user/repo> [dir]` */
export const cloneCommand: Command = {
  name: "clone",
  summary: "clone a repository so that git push just works",
  help: helpText({
    program: "signet clone",
    usage: "<user/repo> [dir]",
    sections: [
      `Clones <host>/<user>/<repo>.git over HTTP(S) into [dir] (default <repo>) and sets,
in the clone's own git config:`,
      {
        title: "Settings",
        rows: [
          ["credential.helper", "(reset, then) signet's credential helper"],
          ["credential.useHttpPath", "true, so git tells the helper which repository it is"],
        ],
      },
      `After that a plain "git push" logs in with your SSH key; no token is typed or stored
by git. "signet clone <repo>" clones one of your own repositories.`,
    ],
  }),
  async run(args) {
    const { positionals } = parseArgs(args, {}, 2);
    if (!positionals[0]) throw new UsageError("missing repository: signet clone <user/repo> [dir]");
    const session = await openSession();
    // The name keeps its .git suffix here: validateRepoName strips one (and refuses a second).
    const parts = positionals[0].split("/");
    if (parts.length === 1 && session.username) parts.unshift(session.username);
    if (parts.length !== 2) {
      throw new UsageError(`expected <user>/<repo>, got ${JSON.stringify(positionals[0])}`);
    }
    let owner: string, name: string;
    try {
      owner = validateUsername(parts[0]);
      name = validateRepoName(parts[1]);
    } catch (err) {
      if (err instanceof DomainError) throw new UsageError(err.message);
      throw err;
    }
    try {
      await session.api.getRepo(owner, name);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        throw new CliError(`repository ${owner}/${name} not found on ${session.host}`);
      }
      throw err;
    }
    const url = `${session.host}/${owner}/${name}.git`;
    const dir = positionals[1] ?? name;
    let status: Deno.CommandStatus;
    try {
      status = await new Deno.Command("git", {
        args: [
          "clone",
          "-c",
          "credential.helper=",
          "-c",
          `credential.helper=${credentialHelperValue()}`,
          "-c",
          "credential.useHttpPath=true",
          "--",
          url,
          dir,
        ],
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn().status;
    } catch (err) {
      throw new CliError(`cannot run git: ${(err as Error).message}`);
    }
    if (!status.success) throw new CliError(`git clone failed (exit ${status.code})`);
    console.log(`Cloned ${owner}/${name} into ${dir}; git push will log in with your SSH key`);
    return 0;
  },
};
