/** Errors that end a client command: each maps to an exit code. */

/** The command line was wrong (exit code 2). */
export class UsageError extends Error {}

/** The command was well-formed but failed (exit code 1). */
export class CliError extends Error {}
