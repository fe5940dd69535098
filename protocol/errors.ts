/** Domain errors: one kind per outcome, mapped to HTTP statuses and SSH messages by transports. */

/** What went wrong, independent of transport. */
export type ErrorKind =
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "rate_limited"
  | "unavailable";

/** An expected failure whose message is safe to show to the client. */
export class DomainError extends Error {
  constructor(readonly kind: ErrorKind, message: string) {
    super(message);
  }
}

/** HTTP status for each error kind. */
export const HTTP_STATUS: Record<ErrorKind, 400 | 401 | 403 | 404 | 409 | 413 | 429 | 503> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};
