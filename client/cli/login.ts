/** `signet login`: prove key possession and store a token. */
import { environment, helpText } from "./help.ts";
import { clientEnv } from "../env.ts";
import { fingerprint } from "../../protocol/ssh/sshkey.ts";
import { parseArgs } from "../args.ts";
import { UsageError } from "../errors.ts";
import { ask, isInteractive } from "../prompt.ts";
import { login, openSession } from "../session.ts";
import type { Command } from "./command.ts";

/** `signet login [username]` */
export const loginCommand: Command = {
  name: "login",
  summary: "log in with your SSH key and store a token",
  help: helpText({
    program: "signet login",
    usage: "[username]",
    sections: [
      `Requests a login challenge, signs the nonce with your SSH key (SSHSIG, SHA-512,
namespace "service"), and stores the token, username and host in
$XDG_CONFIG_HOME/signet/config.json (default ~/.config/signet/, mode 0600).`,
      `The username defaults to the stored one, then $SERVICE_USER.
Unencrypted keys are read directly; for passphrase-protected keys the running
ssh-agent signs, else ssh-keygen -Y sign (which asks for the passphrase).`,
      environment("SERVICE_HOST", "SERVICE_SSH_KEY", "SERVICE_USER"),
    ],
  }),
  async run(args) {
    const { positionals } = parseArgs(args, {}, 1);
    const session = await openSession();
    let username = positionals[0] ?? session.username ?? clientEnv().user;
    if (!username && isInteractive()) username = await ask("Username: ");
    if (!username) throw new UsageError("no username given: signet login <username>");
    const { user, signer } = await login(session, username);
    const fp = await fingerprint(signer.publicKey.blob);
    console.log(
      `Logged in as ${user.username} on ${session.host} (key ${fp} via ${signer.method})`,
    );
    return 0;
  },
};
