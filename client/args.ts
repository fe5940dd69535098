/** A small, strict command-line parser: declared flags only, positionals counted. */
import { UsageError } from "./errors.ts";

/** Flag declarations: name → kind. Boolean flags take no value; string flags take one. */
export type FlagSpec = Record<string, "boolean" | "string">;

/** Parsed arguments. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

/**
 * Parses `args` against `spec`, accepting `--flag`, `--flag value`, `--flag=value` and `--` to end
 * flags. Throws UsageError on an unknown flag, a missing value, or more than `maxPositionals`.
 */
export function parseArgs(args: string[], spec: FlagSpec, maxPositionals: number): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | boolean | undefined> = {};
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
      flags[name] = value;
    }
  }
  if (positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[maxPositionals])}`);
  }
  return { positionals, flags };
}
