/**
 * The state a client command runs with (host, stored account, API) and the login flow:
 * challenge → SSHSIG (SHA-512, namespace `service`) over the nonce → verify → token.
 */
import { clientEnv } from "./env.ts";
import { Api, ApiError, type ApiUser } from "./api.ts";
import { type ClientConfig, keyPath, loadConfig, normalizeHost, saveConfig } from "./config.ts";
import { fingerprint } from "../protocol/ssh/sshkey.ts";
import { CliError } from "./errors.ts";
import { loadSigner, type SignerOptions, type SshSigner } from "./signer.ts";

/** A client command's view of where it talks to and as whom. */
export interface Session {
  /** Normalized base URL: $SERVICE_HOST, else the configured host. */
  host: string;
  /** The config file's contents as loaded. */
  config: ClientConfig;
  /** The stored username, when it belongs to `host`. */
  username?: string;
  /** The stored token, when it belongs to `host`. */
  token?: string;
  api: Api;
}

/** The host from $SERVICE_HOST or the config; undefined when neither is set. */
export function configuredHost(config: ClientConfig): string | undefined {
  const env = clientEnv().host;
  if (env) return normalizeHost(env);
  return config.host ? normalizeHost(config.host) : undefined;
}

/** Loads the config and resolves the host; fails with advice when no host is known. */
export async function openSession(): Promise<Session> {
  const config = await loadConfig();
  const host = configuredHost(config);
  if (!host) {
    throw new CliError('no host configured: run "signet init --host <URL>" or set SERVICE_HOST');
  }
  const ours = config.host !== undefined && normalizeHost(config.host) === host;
  return {
    host,
    config,
    username: ours ? config.username : undefined,
    token: ours ? config.token : undefined,
    api: new Api(host),
  };
}

/** Runs the challenge/sign/verify flow for `username` with `signer`; returns token and user. */
export async function obtainToken(
  api: Api,
  username: string,
  signer: SshSigner,
): Promise<{ token: string; user: ApiUser }> {
  const nonce = await api.challenge(username);
  const signature = await signer.sign(new TextEncoder().encode(nonce));
  return await api.verify(username, nonce, signature);
}

/** Logs in as `username` with the configured key and stores host, username and token. */
export async function login(
  session: Session,
  username: string,
  opts: SignerOptions = {},
): Promise<{ user: ApiUser; signer: SshSigner }> {
  const signer = await loadSigner(keyPath(), opts);
  let result: { token: string; user: ApiUser };
  try {
    result = await obtainToken(session.api, username, signer);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    const fp = await fingerprint(signer.publicKey.blob);
    throw new CliError(
      `cannot log in as ${username} on ${session.host} with key ${fp}: ${err.message} ` +
        `(is ${username} registered there with this key?)`,
    );
  }
  await remember(session, result.user.username, result.token);
  return { user: result.user, signer };
}

/** Stores host, username and token for `session` in the config file. */
export async function remember(session: Session, username: string, token?: string) {
  session.config = { host: session.host, username, token };
  session.username = username;
  session.token = token;
  await saveConfig(session.config);
}

/**
 * Runs `call` with the stored token. With no token, or when the server rejects it (401), logs in
 * again with the stored username (or $SERVICE_USER) and the SSH key, then calls once more.
 */
export async function withToken<T>(
  session: Session,
  call: (token: string) => Promise<T>,
): Promise<T> {
  if (session.token) {
    try {
      return await call(session.token);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    }
  }
  const hadToken = session.token !== undefined;
  const username = session.username ?? clientEnv().user;
  if (!username) {
    throw new CliError(`not logged in to ${session.host}: run "signet login <username>"`);
  }
  try {
    await login(session, username);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new CliError(
      `${hadToken ? "the stored token was rejected and logging in again" : "logging in"} as ` +
        `${username} failed: ${why}`,
    );
  }
  if (hadToken) {
    console.error(`signet: the stored token was rejected; logged in again as ${username}`);
  }
  return await call(session.token!);
}
