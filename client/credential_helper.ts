/**
 * What `signet credential get|store|erase` does for git. `get` answers only for the configured
 * host: it picks the user ($SERVICE_USER, else the URL's username, else the repository owner from
 * the path), reuses the stored token when it is that user's and still valid, else logs in with
 * the SSH key, and hands the token back as the password.
 */
import { clientEnv } from "./env.ts";
import { USERNAME_PATTERN } from "../protocol/names.ts";
import { constantTimeEqual } from "../protocol/secrets.ts";
import { fingerprint } from "../protocol/ssh/sshkey.ts";
import { Api, ApiError } from "./api.ts";
import { type ClientConfig, keyPath, loadConfig, normalizeHost, saveConfig } from "./config.ts";
import { type CredentialAttrs, single } from "./credential.ts";
import { configuredHost, obtainToken } from "./session.ts";
import { loadSigner } from "./signer.ts";

/** What a helper action produced: attributes for stdout and notes for stderr. */
export interface HelperResult {
  output: CredentialAttrs;
  notes: string[];
}

/** The path of the request below the host's base path, or undefined when it is elsewhere. */
function repoPathOf(host: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const base = new URL(host).pathname.replace(/^\/+|\/+$/g, "");
  const clean = path.replace(/^\/+/, "");
  if (!base) return clean;
  return clean.startsWith(`${base}/`) ? clean.slice(base.length + 1) : undefined;
}

/** True when the request's protocol and host are those of `host`. */
export function isForHost(host: string, input: CredentialAttrs): boolean {
  const url = new URL(host);
  const protocol = single(input, "protocol");
  let requested = (single(input, "host") ?? "").toLowerCase();
  if (protocol === "https") requested = requested.replace(/:443$/, "");
  if (protocol === "http") requested = requested.replace(/:80$/, "");
  return protocol === url.protocol.slice(0, -1) && requested === url.host.toLowerCase();
}

/** Handles `get`. Never throws for expected failures: they become notes and an empty answer. */
export async function credentialGet(input: CredentialAttrs): Promise<HelperResult> {
  const notes: string[] = [];
  const none = (note: string): HelperResult => ({ output: {}, notes: [...notes, note] });
  const config = await loadConfig();
  const host = configuredHost(config);
  const requested = `${single(input, "protocol") ?? "?"}://${single(input, "host") ?? "?"}`;
  if (!host) return none(`no signet host configured; not answering for ${requested}`);
  if (!isForHost(host, input)) {
    return none(`not answering for ${requested}: the configured host is ${host}`);
  }

  const repoPath = repoPathOf(host, single(input, "path"));
  const owner = repoPath?.split("/")[0];
  const ours = config.host !== undefined && normalizeHost(config.host) === host;
  const storedUser = ours ? config.username : undefined;
  const user = clientEnv().user || single(input, "username") ||
    (owner && USERNAME_PATTERN.test(owner) ? owner : undefined) || storedUser;
  if (!user) {
    return none(
      "cannot tell which user to log in as: git sent no repository path " +
        "(set credential.useHttpPath=true) and no user is stored (run signet login)",
    );
  }

  const api = new Api(host);
  if (ours && config.token && storedUser === user) {
    try {
      if ((await api.me(config.token)).username === user) {
        return { output: { username: user, password: config.token }, notes };
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) {
        return none(`cannot check the stored token: ${(err as Error).message}`);
      }
      notes.push("the stored token was rejected; logging in again");
    }
  }

  let token: string;
  try {
    const signer = await loadSigner(keyPath());
    try {
      token = (await obtainToken(api, user, signer)).token;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        const fp = await fingerprint(signer.publicKey.blob);
        const who = storedUser && storedUser !== user
          ? ` (you are logged in as ${storedUser})`
          : "";
        return none(
          `cannot log in as ${user} on ${host}: your key ${fp} is not ${user}'s key${who}; ` +
            `only ${user} can push to ${repoPath?.replace(/\.git$/, "") ?? "this repository"}`,
        );
      }
      throw err;
    }
  } catch (err) {
    return none(`cannot log in as ${user} on ${host}: ${(err as Error).message}`);
  }
  if (ours && (storedUser === undefined || storedUser === user)) {
    try {
      await saveConfig({ ...config, host, username: user, token } satisfies ClientConfig);
    } catch (err) {
      notes.push(`the new token works but was not stored: ${(err as Error).message}`);
    }
  }
  return { output: { username: user, password: token }, notes };
}

/** Handles `erase`: forgets the stored token when git reports that exact token as rejected. */
export async function credentialErase(input: CredentialAttrs): Promise<HelperResult> {
  const config = await loadConfig();
  const host = configuredHost(config);
  const password = single(input, "password");
  if (
    host && isForHost(host, input) && config.host && normalizeHost(config.host) === host &&
    config.token && password && constantTimeEqual(password, config.token)
  ) {
    await saveConfig({ ...config, token: undefined });
  }
  return { output: {}, notes: [] };
}
