/** What every workload needs to know about one way of reaching the bench repositories. */
import type { ServerProcess } from "./baselines/process.ts";

/** The repositories every transport serves: generated ones, plus a scratch one for big pushes. */
export type RepoName = "small" | "big" | "scratch";

/** The repositories each transport serves, in this order. */
export const REPO_NAMES: RepoName[] = ["small", "big", "scratch"];

/** One transport under test (a baseline or Signet). */
export interface Transport {
  /** Short id used in tables: file, openssh, nginx, signet-ssh, signet-http, thin-ssh, thin-http. */
  id: string;
  /** Human description for RESULTS.md. */
  label: string;
  kind: "file" | "ssh" | "http";
  /** The clone URL of `repo`. */
  url(repo: RepoName): string;
  /** Extra env for git on the client (e.g. GIT_SSH_COMMAND). */
  env: Record<string, string>;
  /** Extra git arguments placed before the subcommand (e.g. `-c http.extraHeader=...`). */
  gitArgs: string[];
  /** The server process tree (null for file://). */
  server: ServerProcess | null;
  /**
   * A Signet transport on PostgreSQL (its id ends in `-pg`): measured in the same interleaved
   * runs, shown only in the report's "Storage engines" section. Absent: SQLite or a baseline.
   */
  engine?: "postgres";
  /**
   * Runs the fixed-cost workloads only (ls-remote, fetch and push of one commit): the stack's
   * limit (bench/baselines/thin.ts), which no goal needs on the clones.
   */
  fixedCostOnly?: true;
}

/** Whether `t` is one of the PostgreSQL Signet transports of the engine comparison. */
export function onPostgres(t: Transport): boolean {
  return t.engine === "postgres";
}

/** The ssh command git should use to reach a bench SSH server with `keyPath`. */
export function sshCommand(keyPath: string): string {
  return [
    "ssh",
    `-i ${keyPath}`,
    "-o IdentitiesOnly=yes",
    "-o BatchMode=yes",
    "-o StrictHostKeyChecking=no",
    "-o UserKnownHostsFile=/dev/null",
    "-o LogLevel=ERROR",
  ].join(" ");
}
