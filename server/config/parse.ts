/** The parsers of server settings: each turns one raw env value into a typed one or a ConfigError. */
import { normalizeIp } from "../ip.ts";
import type { MaxStartups } from "../ssh/startups.ts";

/** A host:port pair, or null when the listener is disabled with `off`. */
export interface BindAddress {
  hostname: string;
  port: number;
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

/**
 * SERVICE_DATABASE_URL: unset or empty means the embedded SQLite file; otherwise a `postgres://`
 * or `postgresql://` URL. The message never repeats the URL (it may hold a password).
 */
export function parseDatabaseUrl(value: string | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      "SERVICE_DATABASE_URL is not a URL: use postgres://user:password@host:5432/database " +
        "(percent-encode @, :, / and other special characters in the password, e.g. @ as %40), " +
        "or leave it unset for the embedded SQLite database",
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      `SERVICE_DATABASE_URL must start with postgres:// or postgresql:// (not ${url.protocol}//); leave it unset for the embedded SQLite database`,
    );
  }
  return value;
}

/** An instance name: what `hostname` accepts, 1-63 letters, digits, `.`, `_`, `-`, a letter or digit first. */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * SERVICE_INSTANCE_NAME: names this process among the instances sharing one data dir and one
 * database (its private directory `<data dir>/run/<name>`, health answers, metrics, logs).
 * Default: `hostname`, the machine's name (one instance per machine needs no setting).
 */
export function parseInstanceName(value: string | undefined, hostname: () => string): string {
  const name = value === undefined || value === "" ? hostname() : value;
  if (!INSTANCE_NAME.test(name)) {
    const what = value === undefined || value === ""
      ? `the host name "${name}" is not usable as SERVICE_INSTANCE_NAME; set SERVICE_INSTANCE_NAME`
      : `SERVICE_INSTANCE_NAME="${name}"`;
    throw new ConfigError(
      `${what}: use 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return name;
}

/** A database URL safe to log: `postgres://user@host:port/database`, never the password. */
export function redactDatabaseUrl(value: string): string {
  const url = new URL(value);
  const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
  // A Unix-domain socket's directory stays: without it the URL would read as TCP to the host.
  const socket = url.searchParams.get("host")?.startsWith("/")
    ? `?host=${url.searchParams.get("host")}`
    : "";
  return `${url.protocol}//${user}${url.hostname}:${url.port || "5432"}${url.pathname}${socket}`;
}

/** SERVICE_BASE_URL: an http(s) URL without a trailing slash, or null when unset. */
export function parseBaseUrl(value: string | undefined): string | null {
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
export function parseSshIdleTimeout(value: string | undefined): number {
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

/** `path` made absolute against the working directory, without a trailing slash. */
export function absolute(path: string): string {
  if (path.startsWith("/")) return path.replace(/\/+$/, "") || "/";
  return `${Deno.cwd()}/${path}`.replace(/\/\.\//g, "/").replace(/\/+$/, "");
}
