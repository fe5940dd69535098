/** `signet repo new|list|delete`: manage repositories over the HTTP API. */
import { helpText } from "./help.ts";
import { clientEnv } from "../env.ts";
import { DomainError } from "../../protocol/errors.ts";
import { USERNAME_PATTERN, validateRepoName } from "../../protocol/names.ts";
import { parseArgs } from "../args.ts";
import { CliError, UsageError } from "../errors.ts";
import { ask, isInteractive } from "../prompt.ts";
import { openSession, type Session, withToken } from "../session.ts";
import { type Command, printJson } from "./command.ts";

/** `signet repo <new|list|delete> ...` */
export const repoCommand: Command = {
  name: "repo",
  summary: "create, list and delete repositories",
  group: true,
  help: helpText({
    program: "signet repo",
    usage: [
      ["new <name> [--json]", "create a repository you own"],
      ["list [user] [--json]", "list the repositories of a user (default: you)"],
      ["delete <name> [--yes]", "delete one of your repositories"],
    ],
    sections: [
      `"repo list" prints one <owner>/<name> per line; --json prints the full records.
"repo delete" asks you to type the name on a terminal; elsewhere it needs --yes.`,
    ],
  }),
  async run(args) {
    const [sub, ...rest] = args;
    switch (sub) {
      case "new":
        return await repoNew(rest);
      case "list":
      case "ls":
        return await repoList(rest);
      case "delete":
      case "rm":
        return await repoDelete(rest);
      case undefined:
        throw new UsageError("missing subcommand: new, list or delete");
      default:
        throw new UsageError(`unknown subcommand ${JSON.stringify(sub)}: new, list or delete`);
    }
  },
};

/** Validates a repository name with the server's own rule; a bad name is a usage error. */
function repoName(input: string): string {
  try {
    return validateRepoName(input);
  } catch (err) {
    if (err instanceof DomainError) throw new UsageError(err.message);
    throw err;
  }
}

/** The logged-in user's name, needed as the default owner. */
function me(session: Session): string {
  const name = session.username ?? clientEnv().user;
  if (!name) throw new CliError(`not logged in to ${session.host}: run "signet login <username>"`);
  return name;
}

async function repoNew(args: string[]): Promise<number> {
  const { positionals, flags } = parseArgs(args, { json: "boolean" }, 1);
  if (!positionals[0]) throw new UsageError("missing repository name: signet repo new <name>");
  const name = repoName(positionals[0]);
  const session = await openSession();
  const repo = await withToken(session, (token) => session.api.createRepo(token, name));
  if (flags.json) {
    printJson(repo);
  } else {
    console.log(`Created ${repo.owner}/${repo.name}`);
    console.log(`  clone: signet clone ${repo.owner}/${repo.name}`);
    // Labelled by their own scheme: a server on plain HTTP gives http:// URLs.
    for (const url of [repo.clone_urls.http, repo.clone_urls.ssh]) {
      if (url) console.log(`  ${`${url.slice(0, url.indexOf(":"))}:`.padEnd(6)} ${url}`);
    }
  }
  return 0;
}

async function repoList(args: string[]): Promise<number> {
  const { positionals, flags } = parseArgs(args, { json: "boolean" }, 1);
  const session = await openSession();
  const owner = positionals[0] ?? me(session);
  if (!USERNAME_PATTERN.test(owner)) {
    throw new UsageError(`invalid username ${JSON.stringify(owner)}`);
  }
  const repos = await session.api.listRepos(owner);
  if (flags.json) {
    printJson(repos);
  } else {
    for (const r of repos) console.log(`${r.owner}/${r.name}`);
    if (repos.length === 0) console.error(`${owner} has no repositories`);
  }
  return 0;
}

async function repoDelete(args: string[]): Promise<number> {
  const { positionals, flags } = parseArgs(args, { yes: "boolean" }, 1);
  if (!positionals[0]) throw new UsageError("missing repository name: signet repo delete <name>");
  const session = await openSession();
  const given = positionals[0];
  const slash = given.indexOf("/");
  const owner = slash >= 0 ? given.slice(0, slash) : me(session);
  const name = repoName(slash >= 0 ? given.slice(slash + 1) : given);
  if (!USERNAME_PATTERN.test(owner)) {
    throw new UsageError(`invalid username ${JSON.stringify(owner)}`);
  }
  const full = `${owner}/${name}`;
  if (!flags.yes) {
    if (!isInteractive()) {
      throw new UsageError(`refusing to delete ${full} without confirmation: pass --yes`);
    }
    const answer = await ask(
      `Delete ${full} and all its history from ${session.host}? Type "${name}" to confirm: `,
    );
    if (answer !== name) throw new CliError(`not deleted: confirmation did not match "${name}"`);
  }
  const deleted = await withToken(session, (token) => session.api.deleteRepo(token, owner, name));
  console.log(`Deleted ${deleted}`);
  return 0;
}
