/** Public account routes: signup and the two-step login. */
import { Hono } from "hono";
import type { Signet } from "../../context.ts";
import { issueChallenge, publicUser, signup, verifyLogin } from "../../domain/accounts.ts";
import { clientIp } from "../client_address.ts";
import { readJsonObject } from "../errors.ts";
import { logins } from "../../metrics.ts";
import { log } from "../../log.ts";
import { RateLimitError } from "../../ratelimit.ts";

/** `/api/signup`, `/api/login/challenge`, `/api/login/verify` */
export function accountRoutes(ctx: Signet): Hono {
  const app = new Hono();

  app.post("/signup", async (c) => {
    const body = await readJsonObject(c);
    const user = await signup(ctx, {
      username: body.username,
      public_key: body.public_key,
      invite_code: body.invite_code,
    }, clientIp(c));
    return c.json({ user: publicUser(user) }, 201);
  });

  app.post("/login/challenge", async (c) => {
    await ctx.limiter.take("login_ip", clientIp(c));
    const body = await readJsonObject(c);
    return c.json({ nonce: await issueChallenge(ctx, body.username, clientIp(c)) });
  });

  app.post("/login/verify", async (c) => {
    await ctx.limiter.take("login_ip", clientIp(c));
    const body = await readJsonObject(c);
    try {
      const { token, expiresAt, user } = await verifyLogin(ctx, {
        username: body.username,
        nonce: body.nonce,
        signature: body.signature,
        expires_in_days: body.expires_in_days,
      }, clientIp(c));
      logins.inc({ outcome: "ok" });
      return c.json({ token, expires_at: expiresAt, user: publicUser(user) });
    } catch (err) {
      if (err instanceof RateLimitError) throw err;
      logins.inc({ outcome: "failed" });
      log("warn", "login failed", {
        username: typeof body.username === "string" ? body.username.slice(0, 40) : null,
        reason: (err as Error).message,
      });
      throw err;
    }
  });

  return app;
}
