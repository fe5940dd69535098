/** How git (or anything else) can run this same signet again, e.g. as a credential helper. */

/** Where `deno task build:cli` writes the client commands as one file (client/build.ts). */
export const CLIENT_BUNDLE_PATH = "client/generated/signet_client.js";

/**
 * The argv that runs this signet's client commands: the executable itself when compiled (`deno
 * compile`), else `deno run -A --quiet --no-config <checkout>/client/generated/signet_client.js`:
 * the client commands bundled into one file, which starts ~8 ms sooner than main.ts's ~35 modules,
 * and with no config: they import no package (tests/project/cli_startup_graph_test.ts), and
 * reading deno.json and checking its lock file cost every credential-helper start ~6 ms
 * (docs/decisions/client-cli.md).
 */
export function selfCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath()];
  // This code runs from client/self.ts, or from inside the bundle, one folder deeper.
  const root = new URL(
    import.meta.url.endsWith(CLIENT_BUNDLE_PATH) ? "../../" : "../",
    import.meta.url,
  );
  return [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    "--no-config",
    decodeURIComponent(new URL(CLIENT_BUNDLE_PATH, root).pathname),
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
