/** Server configuration, read only from the environment and validated once at start. */
import { normalizeIp } from "./ip.ts";
import type { MaxStartups } from "./ssh/startups.ts";
import { RATE_RULES, type RateRule, type RateRuleName } from "./ratelimit.ts";

/** A host:port pair, or null when the listener is disabled with `off`. */
export interface BindAddress {
  hostname: string;
  port: number;
}

/** Everything `signet serve` needs to know, resolved from env. */
export interface ServerConfig {
  dataDir: string;
  reposDir: string;
  databasePath: string;
  /** PostgreSQL to use instead of the embedded SQLite file (SERVICE_DATABASE_URL); null = SQLite. */
  databaseUrl: string | null;
  adminKey: string | null;
  adminKeyFile: string;
  httpBind: BindAddress | null;
  sshBind: BindAddress | null;
  sshHostKeyPath: string;
  registryBind: BindAddress | null;
  baseUrl: string | null;
  /** Largest pack a push may send (SERVICE_MAX_PUSH_BYTES), enforced by git on both transports. */
  maxPushBytes: number;
  /** Disk the clone cache may use (SERVICE_CLONE_CACHE_BYTES); 0 = no clone cache. */
  cloneCacheBytes: number;
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

/** Raised when an env value is invalid; the message names the variable and the fix. */
export class ConfigError extends Error {}

/** Defaults used by the shipped binary; `deno task start` overrides a few for non-root use. */
export const DEFAULTS = {
  SERVICE_DATA_DIR: "/srv/signet",
  SERVICE_HTTP_BIND: "0.0.0.0:8080",
  SERVICE_SSH_BIND: "0.0.0.0:22",
  SERVICE_REGISTRY_BIND: "0.0.0.0:8081",
} as const;

/** Parses `host:port`, `[v6]:port`, or `off`; throws ConfigError naming `name` when malformed. */
export function parseBind(name: string, value: string): BindAddress | null {
  if (value === "off") return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  if (!m) {
    throw new ConfigError(
      `${name}="${value}" is not a valid address: use host:port (e.g. 0.0.0.0:8080), [v6]:port, or off`,
    );
  }
  const port = Number(m[3]);
  if (port < 0 || port > 65535) {
    throw new ConfigError(`${name}="${value}": port must be between 0 and 65535`);
  }
  return { hostname: m[1] ?? m[2], port };
}

function parseBaseUrl(value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `SERVICE_BASE_URL="${value}" is not a URL (e.g. https://git.example.com)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`SERVICE_BASE_URL must start with http:// or https://`);
  }
  if (url.search || url.hash) {
    throw new ConfigError(`SERVICE_BASE_URL must not carry a query or fragment`);
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * Parses SERVICE_DATABASE_URL: unset or empty means the embedded SQLite file; otherwise a
 * `postgres://` or `postgresql://` URL. The message never repeats the URL (it may hold a password).
 */
export function parseDatabaseUrl(value: string | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      "SERVICE_DATABASE_URL is not a URL: use postgres://user:password@host:5432/database, or leave it unset for the embedded SQLite database",
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      `SERVICE_DATABASE_URL must start with postgres:// or postgresql:// (not ${url.protocol}//); leave it unset for the embedded SQLite database`,
    );
  }
  return value;
}

/** A database URL safe to log: `postgres://user@host:port/database`, never the password. */
export function redactDatabaseUrl(value: string): string {
  const url = new URL(value);
  const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
  return `${url.protocol}//${user}${url.hostname}:${url.port || "5432"}${url.pathname}`;
}

/** Default SERVICE_HTTP_BODY_TIMEOUT, seconds (as Apache's mod_reqtimeout `body=20`). */
export const DEFAULT_HTTP_BODY_TIMEOUT_S = 20;
/** Default SERVICE_SSH_GIT_IDLE_TIMEOUT, seconds. */
export const DEFAULT_SSH_GIT_IDLE_TIMEOUT_S = 120;

/** Default SERVICE_SHUTDOWN_TIMEOUT, seconds. */
export const DEFAULT_SHUTDOWN_TIMEOUT_S = 30;

/** A comma-separated list of IP addresses (none when unset), each normalized. */
export function parseAddressList(name: string, value: string | undefined): string[] {
  if (value === undefined || value.trim() === "") return [];
  return value.split(",").map((item) => {
    const ip = normalizeIp(item);
    if (ip === null) {
      throw new ConfigError(
        `${name}: "${item.trim()}" is not an IP address (list addresses, e.g. 127.0.0.1,::1)`,
      );
    }
    return ip;
  });
}

/** A positive integer setting, or null when unset (the caller's default applies). */
export function parsePositiveInteger(name: string, value: string | undefined): number | null {
  if (value === undefined || value === "") return null;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
  }
  return Number(value);
}

/** Default SERVICE_HTTP_HEADER_TIMEOUT, seconds. */
export const DEFAULT_HTTP_HEADER_TIMEOUT_S = 20;
/** Default SERVICE_HTTP_IDLE_TIMEOUT, seconds (nginx's keepalive_timeout). */
export const DEFAULT_HTTP_IDLE_TIMEOUT_S = 75;

/** Default SERVICE_SSH_IDLE_TIMEOUT, seconds. */
export const DEFAULT_SSH_IDLE_TIMEOUT_S = 600;
/** Default SERVICE_SSH_MAX_STARTUPS. */
export const DEFAULT_SSH_MAX_STARTUPS: MaxStartups = { start: 64, rate: 30, full: 128 };
/** Default SERVICE_SSH_MAX_STARTUPS_PER_PREFIX. */
export const DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX = 16;
/** Longest SERVICE_SSH_IDLE_TIMEOUT, seconds: a timer holds at most 2^31-1 ms (24.8 days). */
const MAX_SSH_IDLE_TIMEOUT_S = 2_000_000;

/** Parses a duration in seconds (`20`, `0.5`; 0 = off) into milliseconds; `fallback` when unset. */
export function parseSeconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback * 1000;
  if (!/^\d+(\.\d+)?$/.test(value.trim())) {
    throw new ConfigError(
      `${name}="${value}" must be a number of seconds such as 20 (0 turns it off)`,
    );
  }
  return Math.round(Number(value) * 1000);
}

/** SERVICE_SSH_IDLE_TIMEOUT in milliseconds (0 = never), within what a timer can hold. */
function parseSshIdleTimeout(value: string | undefined): number {
  const ms = parseSeconds("SERVICE_SSH_IDLE_TIMEOUT", value, DEFAULT_SSH_IDLE_TIMEOUT_S);
  if (ms > MAX_SSH_IDLE_TIMEOUT_S * 1000) {
    throw new ConfigError(
      `SERVICE_SSH_IDLE_TIMEOUT="${value}" is too long: ` +
        `at most ${MAX_SSH_IDLE_TIMEOUT_S} seconds (0 turns it off)`,
    );
  }
  return ms;
}

/**
 * Parses SERVICE_SSH_MAX_STARTUPS as sshd's MaxStartups: `start:rate:full` (random early drop
 * from `start` unauthenticated connections, `rate`% rising to 100% at `full`), or one number
 * (a plain cap). The default when unset.
 */
export function parseMaxStartups(value: string | undefined): MaxStartups {
  if (value === undefined || value.trim() === "") return DEFAULT_SSH_MAX_STARTUPS;
  const form = "use start:rate:full (e.g. 64:30:128) or one number";
  const m = /^(\d{1,6})(?::(\d{1,3}):(\d{1,6}))?$/.exec(value.trim());
  if (!m) throw new ConfigError(`SERVICE_SSH_MAX_STARTUPS="${value}" is malformed: ${form}`);
  const start = Number(m[1]);
  const limits = m[2] === undefined
    ? { start, rate: 100, full: start }
    : { start, rate: Number(m[2]), full: Number(m[3]) };
  if (limits.start < 1 || limits.rate > 100 || limits.full < limits.start) {
    throw new ConfigError(
      `SERVICE_SSH_MAX_STARTUPS="${value}": need 1 <= start <= full and rate <= 100 (${form})`,
    );
  }
  return limits;
}

/** Parses a byte count like `1048576`, `512m` or `2g`; `fallback` when unset. */
export function parseSize(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const m = /^(\d+)([kmg]?)$/i.exec(value.trim());
  if (!m) {
    throw new ConfigError(`${name}="${value}" must be a byte count such as 1048576, 512m or 2g`);
  }
  const unit =
    { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as "" | "k" | "m" | "g"];
  const bytes = Number(m[1]) * unit;
  if (bytes < 1) throw new ConfigError(`${name} must be at least 1 byte`);
  return bytes;
}

function absolute(path: string): string {
  if (path.startsWith("/")) return path.replace(/\/+$/, "") || "/";
  return `${Deno.cwd()}/${path}`.replace(/\/\.\//g, "/").replace(/\/+$/, "");
}

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
  SERVICE_HTTP_BIND: setting(
    `host:port, [v6]:port or off (default ${DEFAULTS.SERVICE_HTTP_BIND})`,
    "hosting HTTP address",
    (value) => parseBind("SERVICE_HTTP_BIND", value || DEFAULTS.SERVICE_HTTP_BIND),
  ),
  SERVICE_SSH_BIND: setting(
    `host:port, [v6]:port or off (default ${DEFAULTS.SERVICE_SSH_BIND})`,
    "SSH address",
    (value) => parseBind("SERVICE_SSH_BIND", value || DEFAULTS.SERVICE_SSH_BIND),
  ),
  SERVICE_SSH_HOST_KEY: setting(
    "a file path (default <data dir>/ssh_host_ed25519_key)",
    "SSH host key",
    (value) => value ? absolute(value) : null,
  ),
  SERVICE_REGISTRY_BIND: setting(
    `host:port, [v6]:port or off (default ${DEFAULTS.SERVICE_REGISTRY_BIND})`,
    "bot registry address",
    (value) => parseBind("SERVICE_REGISTRY_BIND", value || DEFAULTS.SERVICE_REGISTRY_BIND),
  ),
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
  SERVICE_HTTP_BODY_TIMEOUT: setting(
    `seconds (default ${DEFAULT_HTTP_BODY_TIMEOUT_S}; 0 disables)`,
    "span over which that rate is counted",
    (value) => parseSeconds("SERVICE_HTTP_BODY_TIMEOUT", value, DEFAULT_HTTP_BODY_TIMEOUT_S),
  ),
  SERVICE_SSH_GIT_IDLE_TIMEOUT: setting(
    `seconds (default ${DEFAULT_SSH_GIT_IDLE_TIMEOUT_S}; 0 = never)`,
    "how long an SSH git session may pass no bytes either way before it is ended",
    (value) => parseSeconds("SERVICE_SSH_GIT_IDLE_TIMEOUT", value, DEFAULT_SSH_GIT_IDLE_TIMEOUT_S),
  ),
  SERVICE_CLONE_CACHE_BYTES: setting(
    'a byte count such as 1g (default 512m; 0 or "off" disables)',
    "disk for the clone cache: identical clones until the next push run git once",
    sizeOrOff("SERVICE_CLONE_CACHE_BYTES", 512 * 1024 ** 2),
  ),
  SERVICE_SHUTDOWN_TIMEOUT: setting(
    `seconds (default ${DEFAULT_SHUTDOWN_TIMEOUT_S})`,
    "how long running transfers get after SIGTERM",
    (value) => parseSeconds("SERVICE_SHUTDOWN_TIMEOUT", value, DEFAULT_SHUTDOWN_TIMEOUT_S),
  ),
  SERVICE_HTTP_HEADER_TIMEOUT: setting(
    `seconds (default ${DEFAULT_HTTP_HEADER_TIMEOUT_S}; 0 turns this check off)`,
    "how long an HTTP request's headers may take to arrive",
    (value) => parseSeconds("SERVICE_HTTP_HEADER_TIMEOUT", value, DEFAULT_HTTP_HEADER_TIMEOUT_S),
  ),
  SERVICE_HTTP_IDLE_TIMEOUT: setting(
    `seconds (default ${DEFAULT_HTTP_IDLE_TIMEOUT_S}; 0 turns this check off)`,
    "how long an HTTP connection may pass no bytes, unless the server is still working on a " +
      "response. Both this and SERVICE_HTTP_HEADER_TIMEOUT at 0 turn the connection guard off " +
      "(for a reverse proxy that enforces them)",
    (value) => parseSeconds("SERVICE_HTTP_IDLE_TIMEOUT", value, DEFAULT_HTTP_IDLE_TIMEOUT_S),
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
    "where git and its helpers are found; git runs with only this PATH",
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

/** The `signet serve --help` text, generated from SETTINGS and RATE_LIMIT_SETTINGS. */
export function serveHelp(): string {
  const entries: [string, Setting<unknown>][] = [
    ...Object.entries(SETTINGS) as [string, Setting<unknown>][],
    ...Object.entries(RATE_LIMIT_SETTINGS),
  ];
  const lines = ["signet serve: run the Signet servers", "", "Environment:"];
  for (const [name, s] of entries) {
    lines.push(`  ${name}`);
    lines.push(...wrap(`${s.about}.`, 6), ...wrap(`Accepts ${s.form}.`, 6));
  }
  return lines.join("\n") + "\n";
}

function wrap(text: string, indent: number, width = 100): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent + line.length + 1 + word.length > width) {
      out.push(" ".repeat(indent) + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(" ".repeat(indent) + line);
  return out;
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
  const dataDir = v.SERVICE_DATA_DIR;
  return {
    dataDir,
    reposDir: `${dataDir}/repos`,
    databasePath: `${dataDir}/signet.db`,
    databaseUrl: v.SERVICE_DATABASE_URL,
    adminKey: v.SERVICE_ADMIN_KEY,
    adminKeyFile: `${dataDir}/admin_key`,
    httpBind: v.SERVICE_HTTP_BIND,
    sshBind: v.SERVICE_SSH_BIND,
    sshHostKeyPath: v.SERVICE_SSH_HOST_KEY ?? `${dataDir}/ssh_host_ed25519_key`,
    registryBind: v.SERVICE_REGISTRY_BIND,
    baseUrl: v.SERVICE_BASE_URL,
    maxPushBytes: v.SERVICE_MAX_PUSH_BYTES,
    cloneCacheBytes: v.SERVICE_CLONE_CACHE_BYTES,
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
