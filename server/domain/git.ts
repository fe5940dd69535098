/** Facts about running git shared by both transports. */

/** Accepts a `GIT_PROTOCOL` value only of the form git sends (`version=2`, `key=value:...`). */
export function gitProtocolEnv(value: string | undefined | null): Record<string, string> {
  if (!value || value.length > 256 || !/^[A-Za-z0-9=._:-]+$/.test(value)) return {};
  return { GIT_PROTOCOL: value };
}

/** The environment every git child runs with: no system config, HOME in the data dir. */
export function gitBaseEnv(dataDir: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: dataDir,
    GIT_CONFIG_NOSYSTEM: "1",
  };
}
