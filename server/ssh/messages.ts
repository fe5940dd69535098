/** Texts the SSH server shows people: how to connect, the greeting, the refusal, next steps. */
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { publicHost, sshCloneUrl } from "../domain/repos.ts";

/** The ssh command line that reaches this server, e.g. `ssh -p 2222 git@example.com`. */
export function sshCommandLine(ctx: Signet): string {
  const port = ctx.sshPort ?? 22;
  return port === 22 ? `ssh git@${publicHost(ctx)}` : `ssh -p ${port} git@${publicHost(ctx)}`;
}

/** What a registered user can do, one command per line, for the greeting and `help`. */
export function capabilities(ctx: Signet, username: string): string {
  const ssh = sshCommandLine(ctx);
  const rows: [string, string][] = [
    ["Create a repository", `${ssh} repo new <name>`],
    ["List repositories", `${ssh} repo list [user]`],
    ["Delete a repository", `${ssh} repo delete <name>`],
    ["Clone any repository", `git clone ${sshCloneUrl(ctx, "<user>", "<name>")}`],
    ["Push to your own", `git push ${sshCloneUrl(ctx, username, "<name>")} main`],
    ["Show this help", `${ssh} help`],
  ];
  return rows.map(([what, how]) => `  ${`${what}:`.padEnd(22)}${how}\n`).join("");
}

/** The answer to a shell request from a registered key. */
export function greeting(ctx: Signet, user: UserRow): string {
  return `Hi ${user.username}! You've successfully authenticated, but Signet does not provide ` +
    `shell access.\n\nWhat you can do over SSH:\n${capabilities(ctx, user.username)}`;
}

/** The refusal of any command from a key no account uses, naming the exact signup command. */
export function unregisteredRefusal(ctx: Signet, fingerprint: string): string {
  return `This SSH key (${fingerprint}) is not registered with any account.\n` +
    `To create an account (you need an invite code), connect without a command and follow ` +
    `the prompts:\n\n    ${sshCommandLine(ctx)}\n\n`;
}
