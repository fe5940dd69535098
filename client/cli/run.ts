/**
 * The client commands alone, as one program: the entry `deno task build:cli` bundles into
 * `client/generated/signet_client.js` (client/build.ts), which git runs as the credential helper
 * when signet runs from source (client/self.ts). One file loads in a fraction of the time of the
 * ~35 modules it is made of (docs/decisions/client-cli.md); `main.ts` runs the same commands.
 */
import { findClientCommand, runClientCommand } from "./index.ts";

/** Runs the client command `args[0]` with the rest; returns the process exit code. */
export async function runClient(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  const command = findClientCommand(name);
  if (command) return await runClientCommand(command, rest);
  console.error(`signet: unknown client command "${name ?? ""}" (see "signet help")`);
  return 2;
}

if (import.meta.main) {
  Deno.exit(await runClient(Deno.args));
}
