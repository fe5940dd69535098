/**
 * The one command-line parser of every `signet` command (client commands, `signet bot`, the
 * credential helper): declared flags only, positionals counted, and the one usage-error style.
 */
import { UsageError } from "./errors.ts";

/**
 * Flag declarations: name → kind. Boolean flags take no value; string flags take one (the last
 * given wins); `strings` flags may repeat and collect every value in order.
 */
export type FlagSpec = Record<string, "boolean" | "string" | "strings">;

/** Parsed arguments. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
}

/**
 * Parses `args` against `spec`, accepting `--flag`, `--flag value`, `--flag=value` and `--` to end
 * flags. Throws UsageError on an unknown flag, a missing value, or more than `maxPositionals`.
 */
export function parseArgs(args: string[], spec: FlagSpec, maxPositionals: number): ParsedArgs {
  const positionals: string[] = [];
  const flags: ParsedArgs["flags"] = {};
  let onlyPositionals = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (onlyPositionals || !arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyPositionals = true;
      continue;
    }
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    const name = m?.[1];
    if (!m || !name || !(name in spec)) throw new UsageError(`unknown option ${arg}`);
    if (spec[name] === "boolean") {
      if (m[2] !== undefined) throw new UsageError(`option --${name} takes no value`);
      flags[name] = true;
    } else {
      const value = m[2] ?? args[++i];
      if (value === undefined) throw new UsageError(`option --${name} needs a value`);
      if (spec[name] === "strings") flags[name] = [...(flags[name] as string[] ?? []), value];
      else flags[name] = value;
    }
  }
  if (positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[maxPositionals])}`);
  }
  return { positionals, flags };
}

/**
 * Prints a usage error in the one style every command uses: `<command>: <message>` and where to
 * find its help, on stderr; returns exit code 2.
 */
export function usageFailure(command: string, message: string, helpCommand: string): number {
  console.error(`${command}: ${message}\n(see "${helpCommand}")`);
  return 2;
}
