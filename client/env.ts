/**
 * The client's environment, read in this one place, once per process. Every client command, the
 * git credential helper and `signet bot` take their settings from here (tests/env_reads.test.ts
 * keeps other client modules from reading Deno.env).
 */
import type { ClientServiceVariable } from "../protocol/client_env.ts";

/** The environment variables the client uses, undefined when unset (callers keep their own fallbacks). */
export interface ClientEnv {
  /** SERVICE_HOST: the host URL, overriding the stored one. */
  host?: string;
  /** SERVICE_SSH_KEY: the private key file. */
  sshKey?: string;
  /** SERVICE_USER: the user to log in as. */
  user?: string;
  /** SERVICE_REGISTRY_URL: the bot registry for `signet bot`. */
  registryUrl?: string;
  /** XDG_CONFIG_HOME: where the client's config directory lives. */
  xdgConfigHome?: string;
  /** HOME: the user's home directory. */
  home?: string;
  /** SSH_AUTH_SOCK: the ssh-agent socket. */
  sshAuthSock?: string;
}

let cached: ClientEnv | undefined;

/** The client's environment, read on first use. */
export function clientEnv(): ClientEnv {
  if (cached) return cached;
  const get = (name: string) => Deno.env.get(name);
  cached = {
    host: get("SERVICE_HOST"),
    sshKey: get("SERVICE_SSH_KEY"),
    user: get("SERVICE_USER"),
    registryUrl: get("SERVICE_REGISTRY_URL"),
    xdgConfigHome: get("XDG_CONFIG_HOME"),
    home: get("HOME"),
    sshAuthSock: get("SSH_AUTH_SOCK"),
  };
  return cached;
}

/**
 * What each client SERVICE_ variable does, for the help texts (client/cli/help.ts): one entry for
 * each name in protocol/client_env.ts, which the server also reads so as not to warn about them.
 */
export const CLIENT_ENV_DOCS = {
  SERVICE_HOST: "host URL (overrides the stored one)",
  SERVICE_SSH_KEY: "private key path (default ~/.ssh/id_ed25519)",
  SERVICE_USER: "user to log in as (default: the stored one; for git, the repository owner)",
  SERVICE_REGISTRY_URL: "bot registry URL (default http://127.0.0.1:8081)",
} as const satisfies Record<ClientServiceVariable, string>;
