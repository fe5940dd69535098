/**
 * Server configuration, read only from the environment and validated once at start: the one
 * module other code imports. The parsers live in config/parse.ts, the table of variables in
 * config/settings.ts, the help text in config/help.ts, the unknown-variable check in
 * config/unknown.ts; this file reads the environment and assembles ServerConfig.
 */
import { log } from "./log.ts";
import { RATE_RULES, type RateRule, type RateRuleName } from "./ratelimit.ts";
import type { MaxStartups } from "./ssh/startups.ts";
import type { BindAddress } from "./config/parse.ts";
import { RATE_LIMIT_SETTINGS, SETTINGS } from "./config/settings.ts";
import { unknownVariables } from "./config/unknown.ts";

export * from "./config/parse.ts";
export { RATE_LIMIT_SETTINGS, type Setting, SETTINGS } from "./config/settings.ts";
export { serveHelp } from "./config/help.ts";
export { unknownVariables } from "./config/unknown.ts";

/** Everything `signet serve` needs to know, resolved from env. */
export interface ServerConfig {
  dataDir: string;
  /** This instance's name among those sharing the data dir and database (SERVICE_INSTANCE_NAME). */
  instanceName: string;
  /**
   * This instance's private directory, `<data dir>/run/<instance name>`: its lock file, the
   * connection guard's sockets, spilled request bodies and the clone cache; never another's.
   */
  instanceDir: string;
  reposDir: string;
  databasePath: string;
  /** PostgreSQL to use instead of the embedded SQLite file (SERVICE_DATABASE_URL); null = SQLite. */
  databaseUrl: string | null;
  adminKey: string | null;
  adminKeyFile: string;
  httpBind: BindAddress | null;
  sshBind: BindAddress | null;
  /** The SSH port clone URLs name (SERVICE_SSH_PUBLIC_PORT); null = the bound port. */
  sshPublicPort: number | null;
  sshHostKeyPath: string;
  registryBind: BindAddress | null;
  baseUrl: string | null;
  /** Largest pack a push may send (SERVICE_MAX_PUSH_BYTES), enforced by git on both transports. */
  maxPushBytes: number;
  /** Disk the clone cache may use (SERVICE_CLONE_CACHE_BYTES); 0 = no clone cache. */
  cloneCacheBytes: number;
  /** Memory for rendered repository pages (SERVICE_BROWSE_CACHE_BYTES); 0 = none kept. */
  browseCacheBytes: number;
  /** Time an HTTP header block may take (SERVICE_HTTP_HEADER_TIMEOUT); 0 = not enforced. */
  httpHeaderTimeoutMs: number;
  /** Time an HTTP connection may sit idle (SERVICE_HTTP_IDLE_TIMEOUT); 0 = not enforced. */
  httpIdleTimeoutMs: number;
  /** How long shutdown waits for running git transfers (SERVICE_SHUTDOWN_TIMEOUT). */
  shutdownTimeoutMs: number;
  /** SSH connections one client IP may hold open (SERVICE_SSH_MAX_CONNECTIONS_PER_IP). */
  sshMaxConnectionsPerIp: number | null;
  /** Unauthenticated SSH connections, sshd's MaxStartups (SERVICE_SSH_MAX_STARTUPS). */
  sshMaxStartups: MaxStartups;
  /** Unauthenticated SSH connections per /24 or /64 (SERVICE_SSH_MAX_STARTUPS_PER_PREFIX). */
  sshMaxStartupsPerPrefix: number;
  /** Time an authenticated SSH connection may sit idle (SERVICE_SSH_IDLE_TIMEOUT); 0 = never. */
  sshIdleTimeoutMs: number;
  /** HTTP connections one client IP may hold open per listener (SERVICE_HTTP_MAX_CONNECTIONS_PER_IP). */
  httpMaxConnectionsPerIp: number | null;
  /** Reverse proxies whose X-Forwarded-For names the client (SERVICE_TRUSTED_PROXIES), normalized. */
  trustedProxies: string[];
  /** Git processes with work at once (SERVICE_GIT_CONCURRENCY). */
  gitConcurrency: number;
  /** Slots one client address or one user may hold (SERVICE_GIT_CONCURRENCY_PER_CLIENT). */
  gitConcurrencyPerClient: number;
  /**
   * Bytes per second a git request body must bring, and a git response be taken at, in each span
   * of httpBodyTimeoutMs (SERVICE_HTTP_BODY_MIN_RATE); 0 = not enforced.
   */
  httpBodyMinRate: number;
  /** The span over which that rate is counted (SERVICE_HTTP_BODY_TIMEOUT); 0 = not enforced. */
  httpBodyTimeoutMs: number;
  /** An SSH git session silent both ways this long ends (SERVICE_SSH_GIT_IDLE_TIMEOUT); 0 = no. */
  sshGitIdleTimeoutMs: number;
  /** Whether the rate limits apply (SERVICE_RATE_LIMITS=on|off). */
  rateLimitsEnabled: boolean;
  /** Each rate-limit rule, defaults overridden by SERVICE_RATE_LIMIT_<RULE>. */
  rateLimitRules: Record<RateRuleName, RateRule>;
  /** The PATH git server processes run with (the server's PATH at start). */
  gitPath: string;
}

/** Reads and validates the server configuration from `env` (defaults to the process env). */
export function loadServerConfig(
  env: Record<string, string | undefined> = Deno.env.toObject(),
): ServerConfig {
  const v = Object.fromEntries(
    Object.entries(SETTINGS).map(([name, s]) => [name, s.parse(env[name])]),
  ) as { [K in keyof typeof SETTINGS]: ReturnType<(typeof SETTINGS)[K]["parse"]> };
  const rules = Object.fromEntries(
    Object.keys(RATE_RULES).map((rule) => {
      const name = `SERVICE_RATE_LIMIT_${rule.toUpperCase()}`;
      return [rule, RATE_LIMIT_SETTINGS[name].parse(env[name])];
    }),
  ) as Record<RateRuleName, RateRule>;
  for (const { name, nearest } of unknownVariables(env)) {
    log("warn", `unknown setting ${name} is ignored; did you mean ${nearest}?`, {
      variable: name,
      nearest,
    });
  }
  const dataDir = v.SERVICE_DATA_DIR;
  return {
    dataDir,
    instanceName: v.SERVICE_INSTANCE_NAME,
    instanceDir: `${dataDir}/run/${v.SERVICE_INSTANCE_NAME}`,
    reposDir: `${dataDir}/repos`,
    databasePath: `${dataDir}/signet.db`,
    databaseUrl: v.SERVICE_DATABASE_URL,
    adminKey: v.SERVICE_ADMIN_KEY,
    adminKeyFile: `${dataDir}/admin_key`,
    httpBind: v.SERVICE_HTTP_BIND,
    sshBind: v.SERVICE_SSH_BIND,
    sshPublicPort: v.SERVICE_SSH_PUBLIC_PORT,
    sshHostKeyPath: v.SERVICE_SSH_HOST_KEY ?? `${dataDir}/ssh_host_ed25519_key`,
    registryBind: v.SERVICE_REGISTRY_BIND,
    baseUrl: v.SERVICE_BASE_URL,
    maxPushBytes: v.SERVICE_MAX_PUSH_BYTES,
    cloneCacheBytes: v.SERVICE_CLONE_CACHE_BYTES,
    browseCacheBytes: v.SERVICE_BROWSE_CACHE_BYTES,
    httpHeaderTimeoutMs: v.SERVICE_HTTP_HEADER_TIMEOUT,
    httpIdleTimeoutMs: v.SERVICE_HTTP_IDLE_TIMEOUT,
    shutdownTimeoutMs: v.SERVICE_SHUTDOWN_TIMEOUT,
    sshMaxConnectionsPerIp: v.SERVICE_SSH_MAX_CONNECTIONS_PER_IP,
    sshMaxStartups: v.SERVICE_SSH_MAX_STARTUPS,
    sshMaxStartupsPerPrefix: v.SERVICE_SSH_MAX_STARTUPS_PER_PREFIX,
    sshIdleTimeoutMs: v.SERVICE_SSH_IDLE_TIMEOUT,
    httpMaxConnectionsPerIp: v.SERVICE_HTTP_MAX_CONNECTIONS_PER_IP,
    trustedProxies: v.SERVICE_TRUSTED_PROXIES,
    gitConcurrency: v.SERVICE_GIT_CONCURRENCY,
    gitConcurrencyPerClient: v.SERVICE_GIT_CONCURRENCY_PER_CLIENT ??
      Math.ceil(v.SERVICE_GIT_CONCURRENCY / 2),
    httpBodyMinRate: v.SERVICE_HTTP_BODY_MIN_RATE,
    httpBodyTimeoutMs: v.SERVICE_HTTP_BODY_TIMEOUT,
    sshGitIdleTimeoutMs: v.SERVICE_SSH_GIT_IDLE_TIMEOUT,
    rateLimitsEnabled: v.SERVICE_RATE_LIMITS,
    rateLimitRules: rules,
    gitPath: v.PATH,
  };
}
