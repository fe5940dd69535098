/** How git (or anything else) can run this same signet again, e.g. as a credential helper. */

/**
 * The argv that runs this signet: the executable itself when compiled (`deno compile`), else
 * `deno run -A --config <deno.json> <main.ts>` from this source tree.
 */
export function selfCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath()];
  const root = new URL("../", import.meta.url);
  return [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    "--config",
    decodeURIComponent(new URL("deno.json", root).pathname),
    decodeURIComponent(new URL("main.ts", root).pathname),
  ];
}

/** Quotes `arg` for a POSIX shell. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_\/.:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The `credential.helper` value that makes git call `signet credential <action>`. */
export function credentialHelperValue(): string {
  return "!" + [...selfCommand(), "credential"].map(shellQuote).join(" ");
}
