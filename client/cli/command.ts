/** The shape of a client command and small output helpers shared by the commands. */

/** One `signet <name>` client command. */
export interface Command {
  /** The word after `signet`. */
  name: string;
  /** One line for `signet help`. */
  summary: string;
  /** The full text of `signet help <name>`. */
  help: string;
  /**
   * True when the first argument names a subcommand (`signet token list`): then `help` there
   * prints this help, as `--help` does.
   */
  group?: boolean;
  /** Runs the command with the arguments after its name; returns the exit code. */
  run(args: string[]): Promise<number>;
}

/** Prints `value` as pretty JSON on stdout (the `--json` output). */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
