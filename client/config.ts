/**
 * The client's per-user state: `$XDG_CONFIG_HOME/signet/config.json` (default
 * `~/.config/signet/`), holding host, username and token, readable by the user only (0600).
 */
import { clientEnv } from "./env.ts";
import { CliError, UsageError } from "./errors.ts";

/** What the client remembers between runs. */
export interface ClientConfig {
  /** Normalized base URL of the Signet host, e.g. `https://git.example.com`. */
  host?: string;
  /** The account name on that host. */
  username?: string;
  /** The bearer token for that account on that host. */
  token?: string;
}

/** The directory holding the client's config. */
export function configDir(): string {
  const xdg = clientEnv().xdgConfigHome;
  if (xdg && xdg.startsWith("/")) return `${xdg}/signet`;
  return `${homeDir()}/.config/signet`;
}

/** The config file path. */
export function configPath(): string {
  return `${configDir()}/config.json`;
}

/** $HOME, which the client needs for its defaults. */
export function homeDir(): string {
  const home = clientEnv().home;
  if (!home) throw new CliError("HOME is not set");
  return home;
}

/** The SSH key to use: $SERVICE_SSH_KEY, default `~/.ssh/id_ed25519`. */
export function keyPath(): string {
  const fromEnv = clientEnv().sshKey;
  if (fromEnv) return fromEnv.startsWith("~/") ? `${homeDir()}${fromEnv.slice(1)}` : fromEnv;
  return `${homeDir()}/.ssh/id_ed25519`;
}

/** Loads the config; a missing file is an empty config, a damaged one an error. */
export async function loadConfig(): Promise<ClientConfig> {
  const path = configPath();
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not valid JSON; fix it or delete it and run "signet init"`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliError(`${path} must hold a JSON object; delete it and run "signet init"`);
  }
  const raw = value as Record<string, unknown>;
  const config: ClientConfig = {};
  for (const field of ["host", "username", "token"] as const) {
    const v = raw[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new CliError(`${path}: "${field}" must be a string`);
    config[field] = v;
  }
  return config;
}

/** Writes the config atomically with mode 0600 (directory 0700). */
export async function saveConfig(config: ClientConfig): Promise<void> {
  const dir = configDir();
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${dir}/.config.json.${crypto.randomUUID()}`;
  const body = JSON.stringify(
    { host: config.host, username: config.username, token: config.token },
    null,
    2,
  );
  try {
    await Deno.writeTextFile(tmp, body + "\n", { mode: 0o600, createNew: true });
    await Deno.chmod(tmp, 0o600);
    await Deno.rename(tmp, configPath());
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw new CliError(`cannot write ${configPath()}: ${(err as Error).message}`);
  }
}

/**
 * Normalizes a host given by the user to a base URL without trailing slash:
 * `git.example.com` → `https://git.example.com`; `http://127.0.0.1:8080/` → `http://127.0.0.1:8080`.
 * `what` names the value in the UsageError a bad one throws (the hosting host, the registry).
 */
export function normalizeHost(input: string, what = "host"): string {
  const text = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(
      `invalid ${what} ${JSON.stringify(input)}: expected a URL like https://git.example.com`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(
      `${what} must be an http:// or https:// URL, got ${JSON.stringify(input)}`,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(`${what} must not contain credentials, a query or a fragment`);
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}
