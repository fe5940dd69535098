/** Credential parsing and auth middleware for the hosting API. */
import type { Context, MiddlewareHandler } from "hono";
import type { UserRow } from "../../db/users.ts";
import { resolveToken } from "../domain/tokens.ts";
import { DomainError } from "../../protocol/errors.ts";
import type { Signet } from "../context.ts";
import { constantTimeEqual } from "../../protocol/secrets.ts";

/** Variables the auth middleware puts on the Hono context: the user and the token's id. */
export type AuthEnv = { Variables: { user: UserRow; tokenId: number } };

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
 * Resolves the user and token behind an Authorization header. Undefined when no header; throws
 * unauthorized for a bad, revoked or expired token and forbidden when a Basic user name is not
 * the token's user.
 */
async function tokenFromAuthorization(
  ctx: Signet,
  header: string | undefined,
): Promise<{ user: UserRow; tokenId: number } | undefined> {
  if (!header) return undefined;
  const creds = parseAuthorization(header);
  if (!creds) throw new DomainError("unauthorized", "malformed Authorization header");
  const found = await resolveToken(ctx, creds.token);
  if (!found) throw new DomainError("unauthorized", "invalid, revoked or expired token");
  if (creds.basicUser !== undefined && creds.basicUser !== found.user.username) {
    throw new DomainError("forbidden", "the token does not belong to the user named in Basic auth");
  }
  return { user: found.user, tokenId: found.token.id };
}

/**
 * Resolves the user behind an Authorization header. Undefined when no header; throws
 * unauthorized for a bad, revoked or expired token and forbidden when a Basic user name is not
 * the token's user.
 */
export async function userFromAuthorization(
  ctx: Signet,
  header: string | undefined,
): Promise<UserRow | undefined> {
  return (await tokenFromAuthorization(ctx, header))?.user;
}

/**
 * Middleware: requires a valid user token; stores the user as `c.get("user")` and the token's id
 * as `c.get("tokenId")`.
 */
export function requireUser(ctx: Signet): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    const found = await tokenFromAuthorization(ctx, c.req.header("Authorization"));
    if (!found) throw new DomainError("unauthorized", "this endpoint requires a bearer token");
    c.set("user", found.user);
    c.set("tokenId", found.tokenId);
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
