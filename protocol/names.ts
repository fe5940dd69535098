/** The one validation of usernames, repository names and repository paths. */
import { DomainError } from "./errors.ts";

/** Usernames as the spec fixes them. */
export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9_-]{1,31}$/;

/** Repository names: start alphanumeric, then letters, digits, `.`, `_`, `-`; at most 100 chars. */
export const REPO_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Throws unless `username` matches the spec's pattern. */
export function validateUsername(username: unknown): string {
  if (typeof username !== "string" || !USERNAME_PATTERN.test(username)) {
    throw new DomainError(
      "invalid",
      "username must be 2-32 characters: lowercase letters, digits, '_' or '-', starting with a letter or digit",
    );
  }
  return username;
}

/**
 * Validates a repository name, stripping one optional `.git` suffix. Rejects `..`, leading `-`
 * or `.`, slashes, a name that still ends in `.git`, and anything outside the allowlist. Returns
 * the bare name; validating it again returns it unchanged.
 */
export function validateRepoName(input: unknown): string {
  if (typeof input !== "string") {
    throw new DomainError("invalid", "repository name must be a string");
  }
  const name = input.endsWith(".git") ? input.slice(0, -4) : input;
  if (name.endsWith(".git")) {
    // `a.git.git` would name `a.git` here and `a` once validated again: no name ends in `.git`.
    throw new DomainError("invalid", "repository name may end in '.git' at most once");
  }
  if (!REPO_NAME_PATTERN.test(name) || name.includes("..") || name.endsWith(".")) {
    throw new DomainError(
      "invalid",
      "repository name must be 1-100 characters: letters, digits, '.', '_' or '-', starting with a letter or digit, without '..'",
    );
  }
  return name;
}

/** A validated `<owner>/<name>` pair. */
export interface RepoPath {
  owner: string;
  name: string;
}

/**
 * Parses a repository path as git clients send it: `owner/name`, `/owner/name.git`, etc.
 * Exactly two segments; both validated. Throws DomainError("invalid") otherwise.
 */
export function parseRepoPath(path: string): RepoPath {
  const trimmed = path.startsWith("/") ? path.slice(1) : path;
  const parts = trimmed.split("/");
  if (parts.length !== 2) {
    throw new DomainError(
      "invalid",
      `repository path must be <owner>/<name>, got ${JSON.stringify(path)}`,
    );
  }
  return { owner: validateUsername(parts[0]), name: validateRepoName(parts[1]) };
}
