/** The table of every variable `signet serve` reads: its accepted form, what it does, its parser. */
import { RATE_RULES, type RateRule, type RateRuleName } from "../ratelimit.ts";
import {
  absolute,
  type BindAddress,
  ConfigError,
  DEFAULT_HTTP_BODY_TIMEOUT_S,
  DEFAULT_HTTP_HEADER_TIMEOUT_S,
  DEFAULT_HTTP_IDLE_TIMEOUT_S,
  DEFAULT_SHUTDOWN_TIMEOUT_S,
  DEFAULT_SSH_GIT_IDLE_TIMEOUT_S,
  DEFAULT_SSH_IDLE_TIMEOUT_S,
  DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX,
  DEFAULTS,
  parseAddressList,
  parseBaseUrl,
  parseBind,
  parseDatabaseUrl,
  parseInstanceName,
  parseMaxStartups,
  parsePositiveInteger,
  parseSeconds,
  parseSize,
  parseSshIdleTimeout,
} from "./parse.ts";

/** One environment variable: how `signet serve --help` describes it, and how it is parsed. */
export interface Setting<T> {
  /** The accepted form and the default, e.g. `host:port, [v6]:port or off (default 0.0.0.0:8080)`. */
  form: string;
  /** What the setting does. */
  about: string;
  /** Parses the raw value (undefined when unset); throws ConfigError naming the variable. */
  parse(value: string | undefined): T;
}

function setting<T>(
  form: string,
  about: string,
  parse: (value: string | undefined) => T,
): Setting<T> {
  return { form, about, parse };
}

/** A listener address: `host:port`, `[v6]:port` or `off`, with its default from DEFAULTS. */
function bindSetting(
  name: "SERVICE_HTTP_BIND" | "SERVICE_SSH_BIND" | "SERVICE_REGISTRY_BIND",
  about: string,
): Setting<BindAddress | null> {
  return setting(
    `host:port, [v6]:port or off (default ${DEFAULTS[name]})`,
    about,
    (value) => parseBind(name, value || DEFAULTS[name]),
  );
}

/** A duration in seconds with a default; `off` says what 0 means (e.g. `; 0 = never`). */
function secondsSetting(
  name: string,
  fallback: number,
  off: string,
  about: string,
): Setting<number> {
  return setting(
    `seconds (default ${fallback}${off})`,
    about,
    (value) => parseSeconds(name, value, fallback),
  );
}

/** 0 or `off` turns a size setting off; anything else is a byte count. */
function sizeOrOff(name: string, fallback: number): (value: string | undefined) => number {
  return (value) =>
    ["0", "off"].includes(value?.trim() ?? "") ? 0 : parseSize(name, value, fallback);
}

/**
 * Every variable `signet serve` reads, in the order `signet serve --help` lists them. The one
 * place the server reads its environment: loadServerConfig parses each entry once at start, and
 * the help text is generated from the same entries.
 */
export const SETTINGS = {
  SERVICE_ADMIN_KEY: setting(
    "at least 16 characters (default: generated into <data dir>/admin_key)",
    "admin key for /api/admin",
    (value) => {
      if (value !== undefined && value.length < 16) {
        throw new ConfigError("SERVICE_ADMIN_KEY must be at least 16 characters long");
      }
      return value ?? null;
    },
  ),
  SERVICE_DATA_DIR: setting(
    "a directory (default /srv/signet; from source, data/ in the checkout)",
    "data directory",
    (value) => absolute(value || DEFAULTS.SERVICE_DATA_DIR),
  ),
  SERVICE_INSTANCE_NAME: setting(
    '1-63 letters, digits, ".", "_" or "-" (default: the host name)',
    "this instance's name among those sharing one data directory and one PostgreSQL database: " +
      "its private files go in <data dir>/run/<name>, and health answers, metrics and logs carry " +
      "it; two running instances on one data directory must have different names",
    (value) => parseInstanceName(value, () => Deno.hostname()),
  ),
  SERVICE_HTTP_BIND: bindSetting("SERVICE_HTTP_BIND", "hosting HTTP address"),
  SERVICE_SSH_BIND: bindSetting("SERVICE_SSH_BIND", "SSH address"),
  SERVICE_SSH_PUBLIC_PORT: setting(
    "a port number (default: the port of SERVICE_SSH_BIND)",
    "the SSH port clone URLs and messages name: behind a load balancer, the balancer's",
    (value) => {
      const port = parsePositiveInteger("SERVICE_SSH_PUBLIC_PORT", value);
      if (port !== null && port > 65535) {
        throw new ConfigError(`SERVICE_SSH_PUBLIC_PORT must be a port (1-65535), got "${value}"`);
      }
      return port;
    },
  ),
  SERVICE_SSH_HOST_KEY: setting(
    "a file path (default <data dir>/ssh_host_ed25519_key)",
    "SSH host key",
    (value) => value ? absolute(value) : null,
  ),
  SERVICE_REGISTRY_BIND: bindSetting("SERVICE_REGISTRY_BIND", "bot registry address"),
  SERVICE_DATABASE_URL: setting(
    "postgres://user:password@host:5432/database (default: the embedded SQLite file signet.db in the data directory)",
    "PostgreSQL database to use instead of the embedded one",
    parseDatabaseUrl,
  ),
  SERVICE_BASE_URL: setting(
    "an http:// or https:// URL (default from the HTTP bind)",
    "public URL used in clone URLs and messages",
    parseBaseUrl,
  ),
  SERVICE_MAX_PUSH_BYTES: setting(
    "a byte count such as 1048576, 512m or 2g (default 1g)",
    "largest pack one push may send, on both transports",
    (value) => parseSize("SERVICE_MAX_PUSH_BYTES", value, 1024 ** 3),
  ),
  SERVICE_SSH_MAX_CONNECTIONS_PER_IP: setting(
    "a positive integer (default 16)",
    "open SSH connections one address may hold",
    (value) => parsePositiveInteger("SERVICE_SSH_MAX_CONNECTIONS_PER_IP", value),
  ),
  SERVICE_SSH_MAX_STARTUPS: setting(
    "start:rate:full or one number (default 64:30:128)",
    "SSH connections not yet authenticated, as sshd's MaxStartups: from start, new ones are " +
      "refused with rate% rising to 100% at full (one number is a plain cap)",
    parseMaxStartups,
  ),
  SERVICE_SSH_MAX_STARTUPS_PER_PREFIX: setting(
    `a positive integer (default ${DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX})`,
    "SSH connections not yet authenticated from one /24 (IPv4) or /64 (IPv6)",
    (value) =>
      parsePositiveInteger("SERVICE_SSH_MAX_STARTUPS_PER_PREFIX", value) ??
        DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX,
  ),
  SERVICE_SSH_IDLE_TIMEOUT: setting(
    `seconds (default ${DEFAULT_SSH_IDLE_TIMEOUT_S}; 0 = never)`,
    "how long an authenticated SSH connection may sit with no input and no running command",
    parseSshIdleTimeout,
  ),
  SERVICE_HTTP_MAX_CONNECTIONS_PER_IP: setting(
    "a positive integer (default 256)",
    "open connections one address may hold on each HTTP listener; more get 429 (enforced by " +
      "the connection guard)",
    (value) => parsePositiveInteger("SERVICE_HTTP_MAX_CONNECTIONS_PER_IP", value),
  ),
  SERVICE_TRUSTED_PROXIES: setting(
    "comma-separated IP addresses, e.g. 127.0.0.1,::1 (default none)",
    "reverse proxies whose X-Forwarded-For names the client, for rate limits and logs",
    (value) => parseAddressList("SERVICE_TRUSTED_PROXIES", value),
  ),
  SERVICE_GIT_CONCURRENCY: setting(
    "a positive integer (default 8 per CPU core)",
    "git processes run at once; others queue",
    (value) =>
      parsePositiveInteger("SERVICE_GIT_CONCURRENCY", value) ??
        Math.max(8, 8 * navigator.hardwareConcurrency),
  ),
  SERVICE_GIT_CONCURRENCY_PER_CLIENT: setting(
    "a positive integer (default half of SERVICE_GIT_CONCURRENCY)",
    "of those, how many one client address or user may hold",
    (value) => parsePositiveInteger("SERVICE_GIT_CONCURRENCY_PER_CLIENT", value),
  ),
  SERVICE_HTTP_BODY_MIN_RATE: setting(
    'bytes per second such as 1k (default 1k; 0 or "off" disables)',
    "rate a git request body must bring and a git response be read at; slower ones are cut off",
    sizeOrOff("SERVICE_HTTP_BODY_MIN_RATE", 1024),
  ),
  SERVICE_HTTP_BODY_TIMEOUT: secondsSetting(
    "SERVICE_HTTP_BODY_TIMEOUT",
    DEFAULT_HTTP_BODY_TIMEOUT_S,
    "; 0 disables",
    "span over which that rate is counted",
  ),
  SERVICE_SSH_GIT_IDLE_TIMEOUT: secondsSetting(
    "SERVICE_SSH_GIT_IDLE_TIMEOUT",
    DEFAULT_SSH_GIT_IDLE_TIMEOUT_S,
    "; 0 = never",
    "how long an SSH git session may pass no bytes either way before it is ended",
  ),
  SERVICE_CLONE_CACHE_BYTES: setting(
    'a byte count such as 1g (default 512m; 0 or "off" disables)',
    "disk for the clone cache: identical clones until the next push run git once",
    sizeOrOff("SERVICE_CLONE_CACHE_BYTES", 512 * 1024 ** 2),
  ),
  SERVICE_BROWSE_CACHE_BYTES: setting(
    'a byte count such as 64m (default 32m; 0 or "off" disables)',
    "memory for rendered repository pages, kept until the repository's refs change",
    sizeOrOff("SERVICE_BROWSE_CACHE_BYTES", 32 * 1024 ** 2),
  ),
  SERVICE_SHUTDOWN_TIMEOUT: secondsSetting(
    "SERVICE_SHUTDOWN_TIMEOUT",
    DEFAULT_SHUTDOWN_TIMEOUT_S,
    "",
    "how long running transfers get after SIGTERM",
  ),
  SERVICE_HTTP_HEADER_TIMEOUT: secondsSetting(
    "SERVICE_HTTP_HEADER_TIMEOUT",
    DEFAULT_HTTP_HEADER_TIMEOUT_S,
    "; 0 turns this check off",
    "how long an HTTP request's headers may take to arrive",
  ),
  SERVICE_HTTP_IDLE_TIMEOUT: secondsSetting(
    "SERVICE_HTTP_IDLE_TIMEOUT",
    DEFAULT_HTTP_IDLE_TIMEOUT_S,
    "; 0 turns this check off",
    "how long an HTTP connection may pass no bytes, unless the server is still working on a " +
      "response. Both this and SERVICE_HTTP_HEADER_TIMEOUT at 0 turn the connection guard off " +
      "(for a reverse proxy that enforces them)",
  ),
  SERVICE_RATE_LIMITS: setting(
    "on or off (default on)",
    "per-IP/user/bot limits, answered with 429",
    (value = "on") => {
      if (value !== "on" && value !== "off") {
        throw new ConfigError(`SERVICE_RATE_LIMITS="${value}" must be on or off`);
      }
      return value === "on";
    },
  ),
  PATH: setting(
    "a search path (default /usr/bin:/bin)",
    "where git, its helpers and pg_dump/pg_restore (backups on PostgreSQL) are found; git runs with only this PATH",
    (value) => value ?? "/usr/bin:/bin",
  ),
};

/** SERVICE_RATE_LIMIT_<RULE>: one entry per rate-limit rule, parsed like SETTINGS. */
export const RATE_LIMIT_SETTINGS = Object.fromEntries(
  (Object.entries(RATE_RULES) as [RateRuleName, RateRule][]).map(([rule, fallback]) => {
    const name = `SERVICE_RATE_LIMIT_${rule.toUpperCase()}`;
    return [
      name,
      setting(
        `<burst>/<per minute> (default ${fallback.burst}/${fallback.perMinute})`,
        `rate limit ${rule}`,
        (value): RateRule => {
          if (value === undefined || value === "") return fallback;
          const m = /^(\d+)\/(\d+)$/.exec(value);
          if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
            throw new ConfigError(`${name}="${value}" must be <burst>/<per minute>, e.g. 10/5`);
          }
          return { burst: Number(m[1]), perMinute: Number(m[2]) };
        },
      ),
    ];
  }),
) as Record<string, Setting<RateRule>>;
