/** Credential parsing and auth middleware for the hosting API. */
import type { Context, MiddlewareHandler } from "hono";
import type { UserRow } from "../../db/users.ts";
import { authenticateToken } from "../domain/accounts.ts";
import { DomainError } from "../domain/errors.ts";
import type { Signet } from "../context.ts";
import { constantTimeEqual } from "../crypto/secrets.ts";

/** Variables the auth middleware puts on the Hono context. */
export type AuthEnv = { Variables: { user: UserRow } };

/** Credentials found in an Authorization header. */
export type Credentials = { token: string; basicUser?: string };

/** Parses `Bearer <token>` or `Basic base64(user:token)`; undefined when absent or unparsable. */
export function parseAuthorization(header: string | undefined): Credentials | undefined {
  if (!header) return undefined;
  const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header);
  if (!m) return undefined;
  if (m[1].toLowerCase() === "bearer") return { token: m[2] };
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(m[2]), (ch) => ch.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { basicUser: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
}

/**
 * Resolves the user behind an Authorization header. Undefined when no header; throws
 * unauthorized for a bad token and forbidden when a Basic user name is not the token's user.
 */
export async function userFromAuthorization(
  ctx: Signet,
  header: string | undefined,
): Promise<UserRow | undefined> {
  if (!header) return undefined;
  const creds = parseAuthorization(header);
  if (!creds) throw new DomainError("unauthorized", "malformed Authorization header");
  const user = await authenticateToken(ctx, creds.token);
  if (!user) throw new DomainError("unauthorized", "invalid or unknown token");
  if (creds.basicUser !== undefined && creds.basicUser !== user.username) {
    throw new DomainError("forbidden", "the token does not belong to the user named in Basic auth");
  }
  return user;
}

/** Middleware: requires a valid user token and stores the user as `c.get("user")`. */
export function requireUser(ctx: Signet): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    const user = await userFromAuthorization(ctx, c.req.header("Authorization"));
    if (!user) throw new DomainError("unauthorized", "this endpoint requires a bearer token");
    c.set("user", user);
    await next();
  };
}

/** Middleware: requires `Authorization: Bearer <admin key>`, compared in constant time. */
export function requireAdmin(ctx: Signet): MiddlewareHandler {
  return async (c: Context, next) => {
    const header = c.req.header("Authorization") ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m || !constantTimeEqual(m[1], ctx.config.adminKey)) {
      return c.json({ error: "a valid admin key is required" }, 401);
    }
    await next();
  };
}
