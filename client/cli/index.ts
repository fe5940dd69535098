/** The client commands of `signet` and the one place their failures become exit codes. */
import { ApiError } from "../api.ts";
import { usageFailure } from "../args.ts";
import { CliError, UsageError } from "../errors.ts";
import { CLIENT_ENV_DOCS } from "../env.ts";
import { KeyFileError } from "../openssh_key.ts";
import { SignerError } from "../signer.ts";
import { cloneCommand } from "./clone.ts";
import type { Command } from "./command.ts";
import { credentialCommand } from "./credential.ts";
import { initCommand } from "./init.ts";
import { loginCommand } from "./login.ts";
import { registerCommand } from "./register.ts";
import { repoCommand } from "./repo.ts";
import { tokenCommand } from "./token.ts";
import { whoamiCommand } from "./whoami.ts";

/** Every client command, in the order `signet help` lists them. */
export const CLIENT_COMMANDS: readonly Command[] = [
  initCommand,
  registerCommand,
  loginCommand,
  whoamiCommand,
  tokenCommand,
  repoCommand,
  cloneCommand,
  credentialCommand,
];

/** The client command called `name`, if any. */
export function findClientCommand(name: string | undefined): Command | undefined {
  return CLIENT_COMMANDS.find((c) => c.name === name);
}

/** Help lines for the main usage text: `  name   summary`. */
export function clientCommandSummaries(): string {
  return CLIENT_COMMANDS.map((c) => `  ${c.name.padEnd(16)} ${c.summary}`).join("\n");
}

/** The `Client environment:` lines of `signet help`, from the client's one env table. */
export function clientEnvironmentSummaries(): string {
  const width = Math.max(...Object.keys(CLIENT_ENV_DOCS).map((name) => name.length));
  return Object.entries(CLIENT_ENV_DOCS).map(([name, about]) => `  ${name.padEnd(width)}  ${about}`)
    .join("\n");
}

/**
 * Runs `command` with `args`: `--help`/`-h` prints its help; returns 0 on success, 1 when the
 * command failed, 2 for a usage error. Failure messages go to stderr.
 */
export async function runClientCommand(command: Command, args: string[]): Promise<number> {
  const helpAsked = args.includes("--help") || args.includes("-h") ||
    (command.group === true && args[0] === "help");
  if (command.name !== "credential" && helpAsked) {
    console.log(command.help);
    return 0;
  }
  try {
    return await command.run(args);
  } catch (err) {
    if (err instanceof UsageError) {
      return usageFailure(`signet ${command.name}`, err.message, `signet help ${command.name}`);
    }
    if (
      err instanceof CliError || err instanceof ApiError || err instanceof SignerError ||
      err instanceof KeyFileError
    ) {
      console.error(`signet ${command.name}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
