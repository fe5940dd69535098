/** The caller's own API tokens: `GET /api/tokens`, `DELETE /api/tokens/<id>`. */
import { Hono } from "hono";
import type { Signet } from "../../context.ts";
import { listTokens, revokeToken } from "../../domain/tokens.ts";
import { type AuthEnv, requireUser } from "../auth.ts";

/** `/api/tokens/*` (mounted at `/api/tokens`) */
export function tokenRoutes(ctx: Signet): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use("*", requireUser(ctx));

  app.get("/", async (c) => {
    const current = c.get("tokenId");
    return c.json({
      tokens: (await listTokens(ctx, c.get("user"))).map((t) => ({
        ...t,
        current: t.id === current,
      })),
    });
  });

  app.delete(
    "/:id",
    async (c) => c.json({ revoked: await revokeToken(ctx, c.req.param("id"), c.get("user")) }),
  );

  return app;
}
