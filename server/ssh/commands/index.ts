/** The table of SSH commands and how a command line picks one. */
import { gitCommand } from "./git.ts";
import { help } from "./help.ts";
import { repoDelete } from "./repo_delete.ts";
import { repoList } from "./repo_list.ts";
import { repoNew } from "./repo_new.ts";
import { type SshCommand, UsageError } from "./types.ts";

/** Top-level commands by name. */
const COMMANDS = new Map<string, SshCommand>([
  ["git-upload-pack", gitCommand("git-upload-pack")],
  ["git-upload-archive", gitCommand("git-upload-archive")],
  ["git-receive-pack", gitCommand("git-receive-pack")],
  ["help", help],
]);

/** `repo <sub>` commands by subcommand. */
const REPO_COMMANDS = new Map<string, SshCommand>([
  ["new", repoNew],
  ["list", repoList],
  ["delete", repoDelete],
  ["help", help],
]);

const GIT_SUBCOMMANDS = new Set(["upload-pack", "upload-archive", "receive-pack"]);

/** Raised for a command name that does not exist; the message names it. */
export class UnknownCommandError extends Error {}

/** A command picked from a command line, with its remaining arguments. */
export interface ResolvedCommand {
  command: SshCommand;
  args: string[];
}

/**
 * Picks the command for the words of an exec request. `git upload-pack` is read as
 * `git-upload-pack`. Throws UsageError (no or incomplete command) or UnknownCommandError.
 */
export function resolveCommand(words: string[]): ResolvedCommand {
  let [name, ...args] = words;
  if (name === undefined) throw new UsageError("no command given; run help for the list");
  if (name === "git" && GIT_SUBCOMMANDS.has(args[0])) {
    name = `git-${args[0]}`;
    args = args.slice(1);
  }
  if (name === "repo") {
    const [sub, ...rest] = args;
    if (sub === undefined) throw new UsageError("repo new|list|delete|help ...");
    const command = REPO_COMMANDS.get(sub);
    if (!command) throw new UnknownCommandError(`repo ${sub}`);
    return { command, args: rest };
  }
  const command = COMMANDS.get(name);
  if (!command) throw new UnknownCommandError(name);
  return { command, args };
}
