/** `signet whoami`: the account the stored token belongs to. */
import { helpText } from "./help.ts";
import { parseArgs } from "../args.ts";
import { openSession, withToken } from "../session.ts";
import { type Command, printJson } from "./command.ts";

/** `signet whoami [--json]` */
export const whoamiCommand: Command = {
  name: "whoami",
  summary: "show the account you are logged in as",
  help: helpText({
    program: "signet whoami",
    usage: "[--json]",
    sections: [
      `Prints the username the stored token belongs to, as the server sees it.
Logs in again with your SSH key when the token is missing or no longer valid.`,
      { title: "Options", rows: [["--json", 'print {"id", "username", "host"}']] },
    ],
  }),
  async run(args) {
    const { flags } = parseArgs(args, { json: "boolean" }, 0);
    const session = await openSession();
    const user = await withToken(session, (token) => session.api.me(token));
    if (flags.json) printJson({ id: user.id, username: user.username, host: session.host });
    else console.log(user.username);
    return 0;
  },
};
