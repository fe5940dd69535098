/**
 * The `signet` executable: the first argument picks the job. Only the client commands are imported
 * up front: the server (`serve`, `backup`, `restore`, `db`) and the bot registry client, which pulls in
 * the registry's zod schemas, load when their command runs (on_demand.ts), so the git credential
 * helper (run by every `git push`) loads none of them (bench/cli_startup.ts measures its start-up).
 */
import {
  clientCommandSummaries,
  clientEnvironmentSummaries,
  findClientCommand,
  runClientCommand,
} from "./client/cli/index.ts";
import { loadOnDemand } from "./on_demand.ts";

/** Version of this build. */
export const VERSION = "0.1.0";

/**
 * The data directory `serve`, `backup` and `restore` use when SERVICE_DATA_DIR is unset and this
 * runs from source (`deno task start`, `deno task signet`, a `signet` installed with `deno task
 * install`): `data/` in the checkout, whatever the current directory. The compiled executable
 * keeps the server default, /srv/signet.
 */
export const SOURCE_DATA_DIR = decodeURIComponent(new URL("./data", import.meta.url).pathname);

/** Sets SERVICE_DATA_DIR to SOURCE_DATA_DIR when running from source and it is unset. */
function defaultDataDirFromSource(): void {
  if (!Deno.build.standalone && !Deno.env.get("SERVICE_DATA_DIR")) {
    Deno.env.set("SERVICE_DATA_DIR", SOURCE_DATA_DIR);
  }
}

const USAGE = `signet ${VERSION}: self-hosted git host and bot identity registry

Usage: signet <command> [args]

Server:
  serve            run the HTTP, SSH and registry servers (configured by SERVICE_* env vars)
  backup <dir>     write a consistent snapshot of SERVICE_DATA_DIR into <dir>, even while serving
  restore <dir>    restore a snapshot into an empty SERVICE_DATA_DIR
                   (SERVICE_DATA_DIR defaults to /srv/signet; from source, data/ in the checkout)
                   with SERVICE_DATABASE_URL set, the database part is pg_dump / pg_restore
  db copy --to <postgres://…>
                   copy the embedded SQLite database into an empty PostgreSQL database

Bot registry:
  bot <command>    manage bot identities (keygen, create, get, update, add-key, remove-key,
                   rotate, revoke, attest, search); see \`signet bot help\`

Client:
${clientCommandSummaries()}

Client environment:
${clientEnvironmentSummaries()}

Other:
  version          print the version
  help [command]   show help
`;

/** Runs the command named by `args[0]`; returns the process exit code. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "serve": {
      if (rest.includes("--help") || rest.includes("-h")) {
        console.log((await loadOnDemand("serverConfig")).serveHelp());
        return 0;
      }
      defaultDataDirFromSource();
      const { ConfigError } = await loadOnDemand("serverConfig");
      const { startServer } = await loadOnDemand("serve");
      let server;
      try {
        server = await startServer();
      } catch (err) {
        if (err instanceof ConfigError) {
          console.error(`signet: configuration error: ${err.message}`);
          return 2;
        }
        throw err;
      }
      return await untilSignal(() => server.close());
    }
    case "bot": {
      const { runBotCommand } = await loadOnDemand("botCli");
      return await runBotCommand(rest);
    }
    case "backup":
    case "restore": {
      defaultDataDirFromSource();
      const { backupCommand } = await loadOnDemand("ops");
      return await backupCommand(command, rest);
    }
    case "db": {
      defaultDataDirFromSource();
      const { dbCommand } = await loadOnDemand("dbCopy");
      return await dbCommand(rest);
    }
    case "version":
    case "--version":
      console.log(`signet ${VERSION}`);
      return 0;
    case undefined:
    case "--help":
    case "-h":
      console.log(USAGE);
      return 0;
    case "help":
      return await help(rest[0]);
    default: {
      const client = findClientCommand(command);
      if (client) return await runClientCommand(client, rest);
      console.error(`signet: unknown command "${command}"\n\n${USAGE}`);
      return 2;
    }
  }
}

/** Signals closer together than this count as one (see untilSignal). */
const SAME_SIGNAL_MS = 1000;

/**
 * Resolves with 0 after the first SIGTERM/SIGINT has run `shutdown`; a second signal (more than
 * SAME_SIGNAL_MS later) exits at once.
 */
function untilSignal(shutdown: () => Promise<void>): Promise<number> {
  return new Promise((resolve) => {
    let firstSignalAt: number | null = null;
    const onSignal = () => {
      if (firstSignalAt !== null) {
        // Ctrl-C under `deno task` arrives twice (the terminal's and the one deno task forwards):
        // a repeat within a second is that same keypress, not a request to exit at once.
        if (performance.now() - firstSignalAt < SAME_SIGNAL_MS) return;
        Deno.exit(130);
      }
      firstSignalAt = performance.now();
      shutdown().then(() => resolve(0), (err) => {
        console.error(`signet: shutdown failed: ${err}`);
        resolve(1);
      });
    };
    Deno.addSignalListener("SIGTERM", onSignal);
    Deno.addSignalListener("SIGINT", onSignal);
  });
}

/** `signet help [command]`. */
async function help(topic: string | undefined): Promise<number> {
  if (topic === undefined) console.log(USAGE);
  else if (topic === "serve") console.log((await loadOnDemand("serverConfig")).serveHelp());
  else if (topic === "db") {
    console.log((await loadOnDemand("dbCopy")).DB_USAGE.trimEnd());
  } else if (["version", "help", "backup", "restore"].includes(topic)) console.log(USAGE);
  else if (topic === "bot") console.log((await loadOnDemand("botCli")).BOT_USAGE);
  else {
    const client = findClientCommand(topic);
    if (!client) {
      console.error(`signet: no help for unknown command "${topic}"\n\n${USAGE}`);
      return 2;
    }
    console.log(client.help);
  }
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
