/** Facts about running git shared by both transports. */

/** Accepts a `GIT_PROTOCOL` value only of the form git sends (`version=2`, `key=value:...`). */
export function gitProtocolEnv(value: string | undefined | null): Record<string, string> {
  if (!value || value.length > 256 || !/^[A-Za-z0-9=._:-]+$/.test(value)) return {};
  return { GIT_PROTOCOL: value };
}
