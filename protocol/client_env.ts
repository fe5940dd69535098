/**
 * The SERVICE_ variables the client (`signet <command>`, the credential helper, `signet bot`)
 * reads. They live here so the server knows them too: `signet serve` warns about an unknown
 * SERVICE_ variable but not about these, which a shell shared with the client may hold.
 */
export const CLIENT_SERVICE_VARIABLES = [
  "SERVICE_HOST",
  "SERVICE_SSH_KEY",
  "SERVICE_USER",
  "SERVICE_REGISTRY_URL",
] as const;

/** One of the client's SERVICE_ variables. */
export type ClientServiceVariable = typeof CLIENT_SERVICE_VARIABLES[number];
