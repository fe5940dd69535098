/** Finding SERVICE_ variables that no setting reads (a typo such as SERVICE_HTTP_BNID). */
import { CLIENT_SERVICE_VARIABLES } from "../../protocol/client_env.ts";
import { RATE_LIMIT_SETTINGS, SETTINGS } from "./settings.ts";

/** Every SERVICE_ name something reads: the server's settings and the client's variables. */
function knownNames(): string[] {
  return [
    ...Object.keys(SETTINGS),
    ...Object.keys(RATE_LIMIT_SETTINGS),
    ...CLIENT_SERVICE_VARIABLES,
  ].filter((name) => name.startsWith("SERVICE_"));
}

/** Levenshtein distance between `a` and `b`. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/**
 * The SERVICE_ variables in `env` that nothing reads, each with the known name nearest to it, in
 * name order. `signet serve` warns about each (it does not refuse to start).
 */
export function unknownVariables(
  env: Record<string, string | undefined>,
): { name: string; nearest: string }[] {
  const known = knownNames();
  return Object.keys(env)
    // SERVICE_TEST_*: the test suite's own (scripts/suite.ts), read by no server.
    .filter((name) =>
      name.startsWith("SERVICE_") && !name.startsWith("SERVICE_TEST_") && !known.includes(name)
    )
    .sort()
    .map((name) => ({
      name,
      nearest: known.reduce((best, k) => distance(name, k) < distance(name, best) ? k : best),
    }));
}
