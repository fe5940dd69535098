/**
 * The `signet` executable: the first argument picks the job. Only the client commands are imported
 * up front: the server (`serve`, `backup`, `restore`) and the bot registry client, which pulls in
 * the registry's zod schemas, load when their command runs, so the git credential helper (run by
 * every `git push`) loads none of them (bench/cli_startup.ts measures its start-up).
 */
import { clientCommandSummaries, findClientCommand, runClientCommand } from "./client/cli/index.ts";

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

Bot registry:
  bot <command>    manage bot identities (keygen, create, get, update, add-key, remove-key,
                   rotate, revoke, attest, search); see \`signet bot help\`

Client:
${clientCommandSummaries()}

Client environment:
  SERVICE_HOST     host URL (overrides the stored one)
  SERVICE_SSH_KEY  private key (default ~/.ssh/id_ed25519)
  SERVICE_USER     user the credential helper logs in as (default: the repository owner)

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
        console.log(SERVE_HELP);
        return 0;
      }
      defaultDataDirFromSource();
      const { ConfigError } = await import("./server/config.ts");
      const { startServer } = await import("./server/serve.ts");
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
      const { runBotCommand } = await import("./client/bot_cli.ts");
      return await runBotCommand(rest);
    }
    case "backup":
    case "restore": {
      defaultDataDirFromSource();
      const { backupCommand } = await import("./server/ops/commands.ts");
      return await backupCommand(command, rest);
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
      return help(rest[0]);
    default: {
      const client = findClientCommand(command);
      if (client) return await runClientCommand(client, rest);
      console.error(`signet: unknown command "${command}"\n\n${USAGE}`);
      return 2;
    }
  }
}

/** Resolves with 0 after the first SIGTERM/SIGINT has run `shutdown`; a second signal exits at once. */
function untilSignal(shutdown: () => Promise<void>): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) Deno.exit(130);
      stopping = true;
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
function help(topic: string | undefined): number {
  if (topic === undefined) console.log(USAGE);
  else if (topic === "serve") console.log(SERVE_HELP);
  else if (["version", "help", "backup", "restore"].includes(topic)) console.log(USAGE);
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

const SERVE_HELP = `signet serve: run the Signet servers

Environment:
  SERVICE_ADMIN_KEY      admin key for /api/admin (default: generated into <data dir>/admin_key)
  SERVICE_DATA_DIR       data directory (default /srv/signet; from source, data/ in the checkout)
  SERVICE_HTTP_BIND      hosting HTTP address (default 0.0.0.0:8080; "off" disables)
  SERVICE_SSH_BIND       SSH address (default 0.0.0.0:22; "off" disables)
  SERVICE_SSH_HOST_KEY   SSH host key path (default <data dir>/ssh_host_ed25519_key)
  SERVICE_REGISTRY_BIND  bot registry address (default 0.0.0.0:8081; "off" disables)
  SERVICE_BASE_URL       public URL used in clone URLs and messages (default from the HTTP bind)
  SERVICE_MAX_PUSH_BYTES largest pack one push may send, e.g. 512m (default 1g), both transports
  SERVICE_SSH_MAX_CONNECTIONS_PER_IP  open SSH connections one address may hold (default 16)
  SERVICE_SSH_MAX_STARTUPS  SSH connections not yet authenticated, as sshd's MaxStartups
                         start:rate:full: from start, new ones are refused with rate% rising to
                         100% at full (default 64:30:128; one number is a plain cap)
  SERVICE_SSH_MAX_STARTUPS_PER_PREFIX  SSH connections not yet authenticated from one /24
                         (IPv4) or /64 (IPv6) (default 16)
  SERVICE_SSH_IDLE_TIMEOUT seconds an authenticated SSH connection may sit with no input and no
                         running command (default 600; 0 = never)
  SERVICE_HTTP_MAX_CONNECTIONS_PER_IP open connections one address may hold on each HTTP
                         listener; more get 429 (default 256; enforced by the connection guard)
  SERVICE_TRUSTED_PROXIES  comma-separated reverse proxy IPs (e.g. 127.0.0.1,::1) whose
                         X-Forwarded-For names the client, for rate limits and logs (default none)
  SERVICE_GIT_CONCURRENCY  git processes run at once, others queue (default 8 per CPU core)
  SERVICE_GIT_CONCURRENCY_PER_CLIENT  of those, how many one client address or user may hold
                         (default half of SERVICE_GIT_CONCURRENCY)
  SERVICE_HTTP_BODY_MIN_RATE  bytes/s a git request body must bring and a git response be read
                         at, e.g. 1k (default 1k; 0 or "off" disables); slower ones are cut off
  SERVICE_HTTP_BODY_TIMEOUT   seconds over which that rate is counted (default 20; 0 disables)
  SERVICE_SSH_GIT_IDLE_TIMEOUT  seconds an SSH git session may pass no bytes either way before it
                         is ended (default 120; 0 = never)
  SERVICE_CLONE_CACHE_BYTES  disk for the clone cache, e.g. 1g (default 512m; "off" disables):
                         identical clones until the next push run git once
  SERVICE_SHUTDOWN_TIMEOUT seconds running transfers get after SIGTERM (default 30)
  SERVICE_HTTP_HEADER_TIMEOUT  seconds an HTTP request's headers may take to arrive (default 20)
  SERVICE_HTTP_IDLE_TIMEOUT    seconds an HTTP connection may pass no bytes, unless the server is
                         still working on a response (default 75). Both 0 turn the guard off (for
                         a reverse proxy that enforces them); one 0 turns that check off
  SERVICE_RATE_LIMITS    on|off (default on): per-IP/user/bot limits, answered with 429
  SERVICE_RATE_LIMIT_<RULE>  <burst>/<per minute> for one rule: LOGIN_IP (30/30), LOGIN_USER
                         (10/10), SIGNUP_IP (10/5), REGISTRY_WRITE_IP (60/60), REGISTRY_WRITE_BOT
                         (20/20), NONCE_IP (120/120), SSH_AUTH_FAIL_IP (20/10)
`;

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
