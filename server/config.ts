/** Server configuration, read only from the environment and validated once at start. */
import { normalizeIp } from "./ip.ts";
import type { MaxStartups } from "./ssh/startups.ts";

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

/** Reads and validates the server configuration from `env` (defaults to the process env). */
export function loadServerConfig(
  env: Record<string, string | undefined> = Deno.env.toObject(),
): ServerConfig {
  const dataDir = absolute(env.SERVICE_DATA_DIR || DEFAULTS.SERVICE_DATA_DIR);
  const adminKey = env.SERVICE_ADMIN_KEY ?? null;
  if (adminKey !== null && adminKey.length < 16) {
    throw new ConfigError("SERVICE_ADMIN_KEY must be at least 16 characters long");
  }
  const gitConcurrency = parsePositiveInteger(
    "SERVICE_GIT_CONCURRENCY",
    env.SERVICE_GIT_CONCURRENCY,
  ) ?? Math.max(8, 8 * navigator.hardwareConcurrency);
  return {
    dataDir,
    reposDir: `${dataDir}/repos`,
    databasePath: `${dataDir}/signet.db`,
    adminKey,
    adminKeyFile: `${dataDir}/admin_key`,
    httpBind: parseBind("SERVICE_HTTP_BIND", env.SERVICE_HTTP_BIND || DEFAULTS.SERVICE_HTTP_BIND),
    sshBind: parseBind("SERVICE_SSH_BIND", env.SERVICE_SSH_BIND || DEFAULTS.SERVICE_SSH_BIND),
    sshHostKeyPath: absolute(env.SERVICE_SSH_HOST_KEY || `${dataDir}/ssh_host_ed25519_key`),
    registryBind: parseBind(
      "SERVICE_REGISTRY_BIND",
      env.SERVICE_REGISTRY_BIND || DEFAULTS.SERVICE_REGISTRY_BIND,
    ),
    baseUrl: parseBaseUrl(env.SERVICE_BASE_URL),
    maxPushBytes: parseSize("SERVICE_MAX_PUSH_BYTES", env.SERVICE_MAX_PUSH_BYTES, 1024 ** 3),
    cloneCacheBytes: ["0", "off"].includes(env.SERVICE_CLONE_CACHE_BYTES?.trim() ?? "")
      ? 0
      : parseSize("SERVICE_CLONE_CACHE_BYTES", env.SERVICE_CLONE_CACHE_BYTES, 512 * 1024 ** 2),
    httpHeaderTimeoutMs: parseSeconds(
      "SERVICE_HTTP_HEADER_TIMEOUT",
      env.SERVICE_HTTP_HEADER_TIMEOUT,
      DEFAULT_HTTP_HEADER_TIMEOUT_S,
    ),
    httpIdleTimeoutMs: parseSeconds(
      "SERVICE_HTTP_IDLE_TIMEOUT",
      env.SERVICE_HTTP_IDLE_TIMEOUT,
      DEFAULT_HTTP_IDLE_TIMEOUT_S,
    ),
    shutdownTimeoutMs: parseSeconds(
      "SERVICE_SHUTDOWN_TIMEOUT",
      env.SERVICE_SHUTDOWN_TIMEOUT,
      DEFAULT_SHUTDOWN_TIMEOUT_S,
    ),
    sshMaxConnectionsPerIp: parsePositiveInteger(
      "SERVICE_SSH_MAX_CONNECTIONS_PER_IP",
      env.SERVICE_SSH_MAX_CONNECTIONS_PER_IP,
    ),
    sshMaxStartups: parseMaxStartups(env.SERVICE_SSH_MAX_STARTUPS),
    sshMaxStartupsPerPrefix: parsePositiveInteger(
      "SERVICE_SSH_MAX_STARTUPS_PER_PREFIX",
      env.SERVICE_SSH_MAX_STARTUPS_PER_PREFIX,
    ) ?? DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX,
    sshIdleTimeoutMs: parseSshIdleTimeout(env.SERVICE_SSH_IDLE_TIMEOUT),
    httpMaxConnectionsPerIp: parsePositiveInteger(
      "SERVICE_HTTP_MAX_CONNECTIONS_PER_IP",
      env.SERVICE_HTTP_MAX_CONNECTIONS_PER_IP,
    ),
    trustedProxies: parseAddressList("SERVICE_TRUSTED_PROXIES", env.SERVICE_TRUSTED_PROXIES),
    gitConcurrency,
    gitConcurrencyPerClient: parsePositiveInteger(
      "SERVICE_GIT_CONCURRENCY_PER_CLIENT",
      env.SERVICE_GIT_CONCURRENCY_PER_CLIENT,
    ) ?? Math.ceil(gitConcurrency / 2),
    httpBodyMinRate: ["0", "off"].includes(env.SERVICE_HTTP_BODY_MIN_RATE?.trim() ?? "")
      ? 0
      : parseSize("SERVICE_HTTP_BODY_MIN_RATE", env.SERVICE_HTTP_BODY_MIN_RATE, 1024),
    httpBodyTimeoutMs: parseSeconds(
      "SERVICE_HTTP_BODY_TIMEOUT",
      env.SERVICE_HTTP_BODY_TIMEOUT,
      DEFAULT_HTTP_BODY_TIMEOUT_S,
    ),
    sshGitIdleTimeoutMs: parseSeconds(
      "SERVICE_SSH_GIT_IDLE_TIMEOUT",
      env.SERVICE_SSH_GIT_IDLE_TIMEOUT,
      DEFAULT_SSH_GIT_IDLE_TIMEOUT_S,
    ),
  };
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
