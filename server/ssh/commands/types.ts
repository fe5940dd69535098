/** What every SSH command receives and how it reports a wrong invocation. */
import type { CommandMarks } from "../timeline.ts";
import type { UserRow } from "../../../db/users.ts";
import type { RepoRow } from "../../../db/repos.ts";
import { parseRepoPath, type RepoPath } from "../../../protocol/names.ts";
import type { Signet } from "../../context.ts";
import type { ChannelIO } from "../io.ts";

/** One run of an SSH command by a registered user. */
export interface Invocation {
  ctx: Signet;
  /** The user whose verified key opened the connection. */
  user: UserRow;
  /** Arguments after the command's name (after `repo <sub>` for repo commands). */
  args: string[];
  /** Environment accepted from the client's `env` requests (only GIT_PROTOCOL). */
  env: Record<string, string>;
  io: ChannelIO;
  /** When the command reached each step (for the log's phases); commands may add theirs. */
  marks: CommandMarks;
  /**
   * The repository the command names (`SshCommand.repoToHold`), found and held since the exec
   * request arrived, beside the user's look-up; the command owns it (releases it).
   */
  held?: Promise<HeldRepo>;
}

/** A repository found and held (see findAndHoldRepo): it stays until `release`. */
export interface HeldRepo {
  repo: RepoRow;
  release: () => void;
}

/** An SSH command: one file under server/ssh/commands/ each. */
export interface SshCommand {
  /** Usage line, e.g. `repo new <name>`. */
  usage: string;
  /** One-line description for `help`. */
  summary: string;
  /** True when the command reads the channel's input; otherwise input is discarded. */
  readsInput?: boolean;
  /**
   * The repository these arguments name, which `run` would find and hold first; null when they
   * name none. Throws on a malformed name (`run` reports it). The session starts holding it while
   * it looks up the caller, so the two database reads overlap (docs/decisions/ssh.md).
   */
  repoToHold?(args: string[]): RepoPath | null;
  /** Runs the command; resolves to the exit status. Throw DomainError or UsageError on failure. */
  run(inv: Invocation): Promise<number>;
}

/** Thrown when a command is called with the wrong arguments; its message is the usage line. */
export class UsageError extends Error {}

/** Throws UsageError(`usage`) unless there are between `min` and `max` arguments. */
export function expectArgs(inv: Invocation, cmd: SshCommand, min: number, max: number): void {
  if (inv.args.length < min || inv.args.length > max) throw new UsageError(cmd.usage);
}

/**
 * The one argument of a `repo <sub> <name>` command as owner and name: `<name>` is the caller's
 * own repository, `<owner>/<name>` names its owner (whether the caller may act on it is the
 * domain's rule). Throws UsageError(`usage`) unless there is exactly one argument.
 */
export function repoArgument(inv: Invocation, cmd: SshCommand): { owner: string; name: string } {
  expectArgs(inv, cmd, 1, 1);
  const arg = inv.args[0];
  return arg.includes("/") ? parseRepoPath(arg) : { owner: inv.user.username, name: arg };
}
