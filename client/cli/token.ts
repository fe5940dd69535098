/** `signet token list|revoke`: the API tokens of your account. */
import { helpText } from "./help.ts";
import { parseArgs } from "../args.ts";
import { UsageError } from "../errors.ts";
import { openSession, remember, type Session, withToken } from "../session.ts";
import { type Command, printJson } from "./command.ts";

/** A token as `GET /api/tokens` lists it (never the secret). */
interface ApiToken {
  id: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  current: boolean;
}

/** `signet token <list|revoke> ...` */
export const tokenCommand: Command = {
  name: "token",
  summary: "list and revoke your API tokens",
  group: true,
  help: helpText({
    program: "signet token",
    usage: [
      ["list [--json]", "list your live tokens (never their secrets)"],
      ["revoke <id>", "revoke one of your tokens at once"],
    ],
    sections: [
      `Every "signet login" issues a token, valid for 90 days. "token list" prints one line per token:
its id, when it was created, last used and expires; "(this one)" marks the token stored here.
Revoking the stored token makes the next command log in again with your SSH key.`,
    ],
  }),
  async run(args) {
    const [sub, ...rest] = args;
    switch (sub) {
      case "list":
      case "ls":
        return await tokenList(rest);
      case "revoke":
        return await tokenRevoke(rest);
      case undefined:
        throw new UsageError("missing subcommand: list or revoke");
      default:
        throw new UsageError(`unknown subcommand ${JSON.stringify(sub)}: list or revoke`);
    }
  },
};

function listTokens(session: Session): Promise<ApiToken[]> {
  return withToken(
    session,
    async (token) =>
      (await session.api.call<{ tokens: ApiToken[] }>("GET", "/api/tokens", { token })).tokens,
  );
}

async function tokenList(args: string[]): Promise<number> {
  const { flags } = parseArgs(args, { json: "boolean" }, 0);
  const session = await openSession();
  const tokens = await listTokens(session);
  if (flags.json) {
    printJson(tokens);
    return 0;
  }
  for (const t of tokens) {
    const used = t.last_used_at ? day(t.last_used_at) : "never";
    console.log(
      `${String(t.id).padEnd(6)} created ${day(t.created_at)}  last used ${used.padEnd(10)}  ` +
        `expires ${day(t.expires_at)}${t.current ? "  (this one)" : ""}`,
    );
  }
  return 0;
}

async function tokenRevoke(args: string[]): Promise<number> {
  const { positionals } = parseArgs(args, {}, 1);
  const given = positionals[0];
  if (given === undefined) throw new UsageError("missing token id: signet token revoke <id>");
  if (!/^[1-9][0-9]{0,14}$/.test(given)) {
    throw new UsageError(`invalid token id ${JSON.stringify(given)}: see "signet token list"`);
  }
  const id = Number(given);
  const session = await openSession();
  const current = (await listTokens(session)).find((t) => t.id === id)?.current === true;
  await withToken(session, (token) => session.api.call("DELETE", `/api/tokens/${id}`, { token }));
  console.log(`Revoked token ${id}`);
  if (current && session.username) {
    await remember(session, session.username);
    console.log("That was the token stored here; the next command logs in again.");
  }
  return 0;
}

/** The date part of an ISO time. */
function day(iso: string): string {
  return iso.slice(0, 10);
}
