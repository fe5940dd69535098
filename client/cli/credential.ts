/** `signet credential <get|store|erase>`: the git credential helper. */
import { environment, helpText } from "./help.ts";
import { CredentialFormatError, formatCredential, parseCredential } from "../credential.ts";
import { credentialErase, credentialGet, type HelperResult } from "../credential_helper.ts";
import { UsageError } from "../errors.ts";
import { credentialHelperValue } from "../self.ts";
import type { Command } from "./command.ts";

/** `signet credential <get|store|erase>` */
export const credentialCommand: Command = {
  name: "credential",
  summary: "git credential helper (used by git, not by people)",
  get help() {
    return helpText({
      program: "signet credential",
      usage: "<get|store|erase>",
      sections: [
        `A git credential helper speaking git's credential protocol on stdin/stdout.
"get" for the configured host logs in as the repository's owner (taken from the
path; $SERVICE_USER overrides) with your SSH key and returns the token as the
password. "store" does nothing; "erase" forgets a stored token git reports as
rejected. Only the protocol is written to stdout; notes go to stderr.`,
        {
          title: `"signet clone" sets this up for you. To set it up by hand in a clone`,
          rows: [
            ["git config credential.helper ''", ""],
            [`git config --add credential.helper ${shellArg(credentialHelperValue())}`, ""],
            ["git config credential.useHttpPath true", ""],
          ],
        },
        environment("SERVICE_HOST", "SERVICE_SSH_KEY", "SERVICE_USER"),
      ],
    });
  },
  async run(args) {
    if (args.length !== 1) throw new UsageError("expected one action: get, store or erase");
    const action = args[0];
    if (action !== "get" && action !== "store" && action !== "erase") return 0; // git: ignore
    let input;
    try {
      input = parseCredential(await new Response(Deno.stdin.readable).text());
    } catch (err) {
      if (err instanceof CredentialFormatError) {
        console.error(`signet credential: ${err.message}`);
        return 1;
      }
      throw err;
    }
    let result: HelperResult = { output: {}, notes: [] };
    if (action === "get") result = await credentialGet(input);
    if (action === "erase") result = await credentialErase(input);
    for (const note of result.notes) console.error(`signet credential: ${note}`);
    const out = formatCredential(result.output);
    if (out) await Deno.stdout.write(new TextEncoder().encode(out));
    return action === "get" && !out ? 1 : 0;
  },
};

function shellArg(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
