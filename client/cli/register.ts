/** `signet register`: create an account with the public key beside your private key. */
import { environment, helpText } from "./help.ts";
import { fingerprint } from "../../protocol/ssh/sshkey.ts";
import { USERNAME_PATTERN } from "../../protocol/names.ts";
import { parseArgs } from "../args.ts";
import { keyPath } from "../config.ts";
import { UsageError } from "../errors.ts";
import { ask, isInteractive } from "../prompt.ts";
import { openSession, remember } from "../session.ts";
import { readPublicKey } from "../signer.ts";
import type { Command } from "./command.ts";

/** `signet register [username] [--invite CODE]` */
export const registerCommand: Command = {
  name: "register",
  summary: "create an account with your SSH key and an invite code",
  help: helpText({
    program: "signet register",
    usage: "[username] [--invite CODE]",
    sections: [
      `Creates an account on the configured host with the public key beside your
private key (<key>.pub, or derived from the key itself) and a single-use invite.
Asks for a missing username or invite code when run on a terminal.`,
      { title: "Options", rows: [["--invite CODE", "the invite code (inv_...)"]] },
      environment("SERVICE_HOST", "SERVICE_SSH_KEY"),
    ],
  }),
  async run(args) {
    const { positionals, flags } = parseArgs(args, { invite: "string" }, 1);
    const session = await openSession();
    const interactive = isInteractive();
    let username = positionals[0];
    if (!username && interactive) username = await ask("Username: ");
    if (!username) throw new UsageError("no username given: signet register <username>");
    if (!USERNAME_PATTERN.test(username)) {
      throw new UsageError(
        `invalid username ${JSON.stringify(username)}: 2-32 characters, lowercase letters, ` +
          "digits, '_' or '-', starting with a letter or digit",
      );
    }
    let invite = flags.invite as string | undefined;
    if (!invite && interactive) invite = await ask("Invite code: ");
    if (!invite) throw new UsageError("no invite code given: pass --invite CODE");

    const path = keyPath();
    const pub = await readPublicKey(path);
    const user = await session.api.signup(username, pub.line, invite);
    await remember(session, user.username);
    console.log(
      `Registered ${user.username} on ${session.host} with key ${await fingerprint(pub.key.blob)}`,
    );
    console.log("Next: signet login");
    return 0;
  },
};
