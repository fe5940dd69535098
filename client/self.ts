/** How git (or anything else) can run this same signet again, e.g. as a credential helper. */

/**
 * The argv that runs this signet: the executable itself when compiled (`deno compile`), else
 * `deno run -A --quiet --no-config <main.ts>` from this source tree. No config: the client's
 * commands import no package (tests/project/cli_startup_graph_test.ts), and reading deno.json and
 * checking its lock file cost every credential-helper start ~6 ms (docs/decisions/client-cli.md).
 */
export function selfCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath()];
  const root = new URL("../", import.meta.url);
  return [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    "--no-config",
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
